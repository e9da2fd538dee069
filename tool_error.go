package infergate

import (
	"fmt"
	"strings"
)

// ToolStage says where a tool call failed.
type ToolStage string

// The stages at which a tool call can fail.
const (
	ToolStageArguments ToolStage = "arguments" // not JSON, or not what the schema allows
	ToolStageRun       ToolStage = "run"       // the function returned an error
	ToolStagePanic     ToolStage = "panic"     // the function panicked (or called runtime.Goexit); it was recovered
	ToolStageNotFound  ToolStage = "not_found" // the model called a tool that does not exist
	ToolStageRefused   ToolStage = "refused"   // ToolLoop.Approve refused the call, which did not run
	ToolStageTimeout   ToolStage = "timeout"   // the call outlived ToolLoop.ToolTimeout
)

// ToolError is a failed tool call. Its Error text is for logs and programs; Feedback is the short,
// plain text the tool loop sends to the model as the call's result, so that it can correct itself.
type ToolError struct {
	Tool  string    // the name of the tool the model called
	Stage ToolStage // where the call failed: ToolStageArguments, ToolStageRun, …
	Err   error     // the cause, when there is one: the function's error, the schema's, …; may be nil
	// Available names the tools that exist, for ToolStageNotFound.
	Available []string

	feedback string // for ToolStageArguments and ToolStageTimeout: what went wrong, in words a model acts on
}

// Error says which tool failed, at which stage and why, with the underlying error's own words.
func (e *ToolError) Error() string {
	switch e.Stage {
	case ToolStageArguments:
		return sprintf("infergate: tool %s: invalid arguments: %v", e.Tool, e.Err)
	case ToolStagePanic:
		return sprintf("infergate: tool %s panicked: %v", e.Tool, e.Err)
	case ToolStageNotFound:
		return sprintf("infergate: the model called an unknown tool %q", e.Tool)
	case ToolStageRefused:
		return sprintf("infergate: tool %s: call refused: %v", e.Tool, e.Err)
	case ToolStageTimeout:
		return sprintf("infergate: tool %s timed out: %v", e.Tool, e.Err)
	}
	return sprintf("infergate: tool %s failed: %v", e.Tool, e.Err)
}

// Unwrap returns the underlying error.
func (e *ToolError) Unwrap() error { return e.Err }

// Feedback is what the model reads as the failed call's result: for example
// `Invalid arguments for get_weather: "city" is required.`, `get_weather failed: <the error>` or
// `There is no tool named "x". Available tools: a, b.` A refused call's feedback is the text of
// the error Approve returned, as it is.
func (e *ToolError) Feedback() string {
	switch e.Stage {
	case ToolStageArguments:
		if e.feedback == "" {
			return "Invalid arguments for " + e.Tool + ": they do not match the tool's schema."
		}
		return "Invalid arguments for " + e.Tool + ": " + e.feedback
	case ToolStageNotFound:
		if len(e.Available) == 0 {
			return fmt.Sprintf("There is no tool named %q, and no tools are available.", e.Tool)
		}
		return fmt.Sprintf("There is no tool named %q. Available tools: %s.", e.Tool, strings.Join(e.Available, ", "))
	case ToolStagePanic:
		return e.Tool + " failed: the tool crashed: " + errorText(e.Err)
	case ToolStageTimeout:
		if e.feedback == "" {
			return e.Tool + " failed: it took too long."
		}
		return e.Tool + " failed: " + e.feedback
	case ToolStageRefused:
		if e.Err == nil || e.Err.Error() == "" {
			return "The call of " + e.Tool + " was refused."
		}
		return e.Err.Error()
	}
	return e.Tool + " failed: " + errorText(e.Err)
}

func errorText(err error) string {
	if err == nil {
		return "no reason given"
	}
	return err.Error()
}
