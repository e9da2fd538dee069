package temporalinfergate

import (
	"context"
	"errors"
	"fmt"
	"slices"

	infergate "github.com/infergate/infergate-go"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"
)

// SignalToolOutcome is the name of the signal that answers a call RunTools deferred: its value is
// an infergate.ToolOutcome whose CallID is the call's ToolCall.ID. SendOutcome sends it.
const SignalToolOutcome = "infergate.tool-outcome"

// QueryPendingToolCalls is the name of the query that lists the calls RunTools waits for an
// outcome of, as []infergate.ToolCall (empty while it waits for none).
const QueryPendingToolCalls = "infergate.pending-tool-calls"

// ToolLoop configures RunTools. It mirrors infergate.ToolLoop: the tools are named rather than
// given, since they run on the workers (NewActivities' tools), and the loop's bounds are counted
// in the workflow's history, so that they hold across workers and restarts.
type ToolLoop struct {
	// Tools names the tools the model may call, each given to NewActivities on the workers.
	Tools []string
	// MaxSteps, MaxToolCalls, MaxTokens and MaxCost bound the loop as infergate.ToolLoop's fields
	// do, over the whole loop: a bound reached ends RunTools with the *infergate.ToolLimitError.
	MaxSteps     int             // model turns (10 when zero)
	MaxToolCalls int             // calls one model turn may ask for (64 when zero)
	MaxTokens    int             // tokens of all turns (no bound when zero)
	MaxCost      infergate.Money // what all turns cost, at the models' prices (no bound when zero)
	// DeferTools names tools whose calls are not run: each waits for a SignalToolOutcome carrying
	// its outcome (a person's decision, say), for as long as it takes.
	DeferTools []string
	// Defer, if set, defers the calls for which it returns true (or panics), as DeferTools does. It
	// runs in the workflow, so it must be deterministic: decide from the call alone.
	Defer func(call infergate.ToolCall) bool
	// TurnOptions and ToolOptions are the activity options of the model turns (ToolTurnActivity)
	// and of the tool calls (ToolActivity); nil takes ctx's (workflow.WithActivityOptions). Give
	// the turns a HeartbeatTimeout: they heartbeat as the model's answer streams in.
	TurnOptions *workflow.ActivityOptions
	ToolOptions *workflow.ActivityOptions // the tool calls' activity options; nil: ctx's
}

// RunTools runs a tool loop in a workflow: each model turn is a ToolTurnActivity, each call of a
// tool the model asks for a ToolActivity (a turn's calls run concurrently), and each deferred call
// (ToolLoop.DeferTools, ToolLoop.Defer) waits for a SignalToolOutcome; the loop ends when the
// model answers without calling a tool. The transcript, the turns taken, the tokens and the spend
// live in the workflow's history, as the activities' results: a worker that stops and another that
// replays the workflow go on from the last completed activity, and no completed tool call runs
// again. The loop's tools are added to req.Tools; the transcript and answer are in the result.
//
// While it waits for outcomes, QueryPendingToolCalls lists the calls waiting. An outcome for a
// call that is not waiting is logged and dropped: a second outcome for a call, and one received
// before the turn's calls were listed (a copy left from an earlier turn), answer nothing.
//
// Errors: a bound reached is the *infergate.ToolLimitError; an activity that failed is its
// *temporal.ActivityError (APIErrorOf reads the gateway's answer); ctx's cancellation while
// waiting for an outcome is its error.
func RunTools(ctx workflow.Context, req infergate.ChatRequest, loop ToolLoop) (*infergate.ToolRunResult, error) {
	for i, name := range loop.DeferTools {
		if !slices.Contains(loop.Tools, name) {
			return nil, &infergate.ValidationError{Field: fmt.Sprintf("ToolLoop.DeferTools[%d]", i), Reason: fmt.Sprintf("%q is not among ToolLoop.Tools", name)}
		}
	}
	first, err := NewChatInput(req)
	if err != nil {
		return nil, err
	}
	var waiting []infergate.ToolCall
	if err := workflow.SetQueryHandler(ctx, QueryPendingToolCalls, func() ([]infergate.ToolCall, error) {
		return slices.Clone(waiting), nil
	}); err != nil {
		return nil, err
	}
	turnCtx, toolCtx := withOptions(ctx, loop.TurnOptions), withOptions(ctx, loop.ToolOptions)
	in := TurnInput{Chat: &first, Tools: loop.Tools, MaxSteps: loop.MaxSteps, MaxToolCalls: loop.MaxToolCalls,
		MaxTokens: loop.MaxTokens, MaxCost: loop.MaxCost}
	for {
		var out TurnOutput
		if err := workflow.ExecuteActivity(turnCtx, ToolTurnActivity, in).Get(ctx, &out); err != nil {
			var limit infergate.ToolLimitError
			if detailsOf(err, ErrorTypeToolLimit, &limit) {
				return nil, &limit
			}
			return nil, err
		}
		if out.Result != nil {
			return out.Result, nil
		}
		if out.State == nil {
			return nil, errors.New("temporalinfergate: a tool turn returned neither a result nor a state")
		}
		outcomes, err := settle(ctx, toolCtx, loop, out.Pending, &waiting)
		if err != nil {
			return nil, err
		}
		in.Chat, in.State, in.Outcomes = nil, out.State, outcomes
	}
}

// settle returns the outcome of each pending call, in order: the calls deferred wait for their
// signal, the others run as activities, concurrently.
func settle(ctx, toolCtx workflow.Context, loop ToolLoop, pending []infergate.ToolCall, waiting *[]infergate.ToolCall) ([]infergate.ToolOutcome, error) {
	signals := workflow.GetSignalChannel(ctx, SignalToolOutcome)
	// Outcomes received before this turn's calls were listed answer none of them: a copy of an
	// earlier outcome, sent twice, must not answer a later call the model gave the same id.
	for {
		var stale infergate.ToolOutcome
		if !signals.ReceiveAsync(&stale) {
			break
		}
		workflow.GetLogger(ctx).Warn("temporalinfergate: dropped an outcome for a call that is not waiting", "CallID", stale.CallID)
	}
	outcomes := make([]infergate.ToolOutcome, len(pending))
	runs := make([]workflow.Future, len(pending))
	deferred, answered := make([]bool, len(pending)), make([]bool, len(pending))
	for i, call := range pending {
		if slices.Contains(loop.DeferTools, call.Function.Name) || askDefer(loop.Defer, call) {
			deferred[i] = true
			*waiting = append(*waiting, call)
			continue
		}
		runs[i] = workflow.ExecuteActivity(toolCtx, ToolActivity, call)
	}
	for i, run := range runs {
		if run == nil {
			continue
		}
		var res ToolCallResult
		if err := run.Get(ctx, &res); err != nil {
			return nil, err
		}
		outcomes[i] = infergate.ToolOutcome{CallID: pending[i].ID, Output: res.Output}
	}
	for len(*waiting) > 0 {
		var o infergate.ToolOutcome
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(signals, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, &o) })
		sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
		sel.Select(ctx)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		i := slices.IndexFunc(pending, func(c infergate.ToolCall) bool { return c.ID == o.CallID })
		for i >= 0 && (!deferred[i] || answered[i]) { // the next waiting call of that id
			next := slices.IndexFunc(pending[i+1:], func(c infergate.ToolCall) bool { return c.ID == o.CallID })
			if next < 0 {
				i = -1
				break
			}
			i += 1 + next
		}
		if i < 0 {
			workflow.GetLogger(ctx).Warn("temporalinfergate: dropped an outcome for a call that is not waiting", "CallID", o.CallID)
			continue
		}
		answered[i] = true
		outcomes[i] = o
		w := slices.IndexFunc(*waiting, func(c infergate.ToolCall) bool { return c.ID == o.CallID })
		*waiting = slices.Delete(*waiting, w, w+1)
	}
	return outcomes, nil
}

// askDefer asks ToolLoop.Defer about a call; one that panics defers it, as infergate's loop does,
// so that a call is not run without a decision.
func askDefer(deferCall func(infergate.ToolCall) bool, call infergate.ToolCall) (later bool) {
	if deferCall == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			later = true
		}
	}()
	return deferCall(call)
}

func withOptions(ctx workflow.Context, opts *workflow.ActivityOptions) workflow.Context {
	if opts == nil {
		return ctx
	}
	return workflow.WithActivityOptions(ctx, *opts)
}

// SendOutcome answers a call RunTools deferred, in the workflow workflowID (runID may be empty: the
// latest run), with SignalToolOutcome.
func SendOutcome(ctx context.Context, c client.Client, workflowID, runID string, outcome infergate.ToolOutcome) error {
	return c.SignalWorkflow(ctx, workflowID, runID, SignalToolOutcome, outcome)
}
