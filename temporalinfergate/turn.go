package temporalinfergate

import (
	"context"
	"errors"
	"fmt"

	infergate "github.com/infergate/infergate-go"
	"go.temporal.io/sdk/activity"
)

// TurnInput is the input of ToolTurnActivity, which RunTools builds: the first turn's request, or
// the state of the loop and the outcomes of the calls its last turn asked for; the names of the
// loop's tools and its bounds.
type TurnInput struct {
	Chat     *ChatInput               `json:"chat,omitempty"`     // the first turn's request
	State    *infergate.ToolLoopState `json:"state,omitempty"`    // the loop so far, for every later turn
	Outcomes []infergate.ToolOutcome  `json:"outcomes,omitempty"` // one per call State's turn asked for
	Tools    []string                 `json:"tools,omitempty"`    // the loop's tools, by name, among the worker's
	// The bounds of infergate.ToolLoop, counted over the whole loop: the state carries the turns,
	// tokens and spend before this turn.
	MaxSteps     int             `json:"max_steps,omitempty"`      // infergate.ToolLoop.MaxSteps
	MaxToolCalls int             `json:"max_tool_calls,omitempty"` // infergate.ToolLoop.MaxToolCalls
	MaxTokens    int             `json:"max_tokens,omitempty"`     // infergate.ToolLoop.MaxTokens
	MaxCost      infergate.Money `json:"max_cost,omitzero"`        // infergate.ToolLoop.MaxCost
}

// TurnOutput is what ToolTurnActivity returns: the loop's state and the calls the model asked
// for, which wait for their outcomes, or the loop's result when the model answered.
type TurnOutput struct {
	State   *infergate.ToolLoopState `json:"state,omitempty"`   // the loop so far, when the model asked for calls
	Pending []infergate.ToolCall     `json:"pending,omitempty"` // the calls of the loop's tools, in the order asked for
	Result  *infergate.ToolRunResult `json:"result,omitempty"`  // the loop's end, when the model answered
}

// ToolTurn takes one model turn of a tool loop, streamed and heartbeating as its chunks arrive, on
// infergate's own loop (ChatService.RunTools, then ResumeTools with the outcomes given): every call
// of the loop's tools is deferred, so that the workflow runs it as an activity of its own, and the
// loop's bounds are checked against the counts the state carries before anything is sent. Calls of
// tools the loop does not have are answered here, as RunTools answers them (the model reads that
// there is no such tool), and the loop goes on in this activity. A bound reached is a
// non-retryable ErrorTypeToolLimit whose details hold the *infergate.ToolLimitError. As one
// activity may so take several turns, its requests carry keys of their own, not the activity's.
func (a *Activities) ToolTurn(ctx context.Context, in TurnInput) (TurnOutput, error) {
	loop := infergate.ToolLoop{MaxSteps: in.MaxSteps, MaxToolCalls: in.MaxToolCalls, MaxTokens: in.MaxTokens, MaxCost: in.MaxCost,
		Defer: func(infergate.ToolCall) bool { return true }}
	for _, name := range in.Tools {
		tool := a.tools[name]
		if tool == nil {
			return TurnOutput{}, fail(fmt.Errorf("temporalinfergate: the worker has no tool %q; it has %q", name, a.names), ErrorTypeRefused, true, 0)
		}
		loop.Tools = append(loop.Tools, tool)
	}
	var run *infergate.ToolRun
	switch {
	case in.State != nil:
		run = a.client.Chat.ResumeTools(ctx, *in.State, in.Outcomes, loop, noRetries)
	case in.Chat != nil:
		run = a.client.Chat.RunTools(ctx, in.Chat.ChatRequest(), loop, noRetries)
	default:
		return TurnOutput{}, fail(errors.New("temporalinfergate: a tool turn needs a request or a state"), ErrorTypeInvalid, true, 0)
	}
	chunks := 0
	for ev := range run.Events() {
		if ev.Kind == infergate.ToolEventDelta {
			chunks++
			activity.RecordHeartbeat(ctx, chunks)
		}
	}
	res, err := run.Wait()
	var paused *infergate.ToolsDeferredError
	switch {
	case errors.As(err, &paused):
		return TurnOutput{State: &paused.State, Pending: paused.Pending}, nil
	case err != nil:
		return TurnOutput{}, classify(ctx, err)
	}
	return TurnOutput{Result: res}, nil
}
