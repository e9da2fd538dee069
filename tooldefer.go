package infergate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// ErrToolsDeferred matches the error of a tool loop that stopped with calls ToolLoop.Defer
// deferred (a *ToolsDeferredError).
var ErrToolsDeferred = errors.New("infergate: tool loop stopped with deferred tool calls")

// ToolsDeferredError ends a tool loop in which ToolLoop.Defer deferred some calls of a model turn.
// The turn's other calls have run. ChatService.ResumeTools goes on from State, in this process or
// another, once each pending call has a ToolOutcome. The run's ToolRunResult holds the transcript
// so far (without the pending calls' results) and counts the turns taken.
type ToolsDeferredError struct {
	State   ToolLoopState // what ResumeTools needs; json.Marshal keeps it
	Pending []ToolCall    // the deferred calls, in the order the model asked for them
}

// Error says how many calls wait, and at which turn.
func (e *ToolsDeferredError) Error() string {
	step := 0
	if e.State.saved != nil {
		step = e.State.saved.Step
	}
	return fmt.Sprintf("infergate: tool loop paused at model turn %d with %d deferred tool calls", step, len(e.Pending))
}

// Is matches ErrToolsDeferred.
func (e *ToolsDeferredError) Is(target error) bool { return target == ErrToolsDeferred }

// ToolOutcome is what came of a deferred call, given to ChatService.ResumeTools.
type ToolOutcome struct {
	CallID string // the pending call's ToolCall.ID
	// Output is the call's result, as the model reads it; with Refused, the reason for the
	// refusal, which the model reads as it reads the text of an error ToolLoop.Approve returns
	// (empty: "The call of <tool> was refused.").
	Output  string
	Refused bool // the call was not run
}

// toolLoopStateVersion is the version of the JSON form of ToolLoopState this SDK writes; it reads
// that one and older ones.
const toolLoopStateVersion = 1

// ToolLoopState is a tool loop stopped by deferred calls: the transcript up to the model turn
// whose calls were deferred, the results of that turn's calls that ran, the turns taken, the
// tokens counted against ToolLoop's bounds, the request's settings (model, temperature, its own
// tools and Extra fields…) and the names of the loop's tools. It holds no credential and none of
// the client's options: the client that resumes brings its own.
//
// It is kept with json.Marshal, as a JSON object with a top-level "version", and read back with
// json.Unmarshal, which refuses, with a *ValidationError, a state of a newer version than this
// SDK reads, and one that is not whole. The zero value is no state: ResumeTools refuses it.
type ToolLoopState struct {
	saved *savedLoop // set once, never changed: copies of a state share it
}

// savedLoop is a stopped loop, in the form its JSON has.
type savedLoop struct {
	Version int `json:"version"`
	// Request holds the request's settings; its Messages are the transcript, which ends with the
	// turn whose calls were deferred. Its Extra is RequestExtra on the wire.
	Request      ChatRequest `json:"request"`
	RequestExtra RawFields   `json:"request_extra,omitempty"`
	Tools        []string    `json:"tools"` // the loop's tools, by name
	Step         int         `json:"step"`  // the model turns taken, the paused one included
	Usage        Usage       `json:"usage"` // as ToolRunResult.Usage sums it
	// Tokens is what ToolLoop.MaxTokens counts: each turn's total, summed.
	Tokens int `json:"tokens"`
	// Spend is what ToolLoop.MaxCost counts: the turns' cost at the prices of the models that served
	// them. It is absent when the loop had no cost bound; a loop resumed with one then counts from 0.
	Spend *Money `json:"spend,omitempty"`
	// Outputs has one entry per call of the paused turn: the result of a call that ran, null for a
	// deferred one.
	Outputs []*string `json:"outputs"`
	// FallbackStart is the index, among the request's model and WithFallbackModels', of the
	// model that served the paused turn, where the next turn starts.
	FallbackStart int `json:"fallback_start,omitempty"`
}

// MarshalJSON writes the state as a JSON object with a top-level "version"; the zero state is null.
func (s ToolLoopState) MarshalJSON() ([]byte, error) {
	if s.saved == nil {
		return []byte("null"), nil
	}
	w := *s.saved
	w.RequestExtra = nil
	if len(w.Request.Extra) > 0 {
		w.RequestExtra = make(RawFields, len(w.Request.Extra))
		for k, v := range w.Request.Extra {
			raw, err := json.Marshal(v)
			if err != nil {
				return nil, invalid("ChatRequest.Extra["+k+"]", "cannot be encoded as JSON: %v", err)
			}
			w.RequestExtra[k] = raw
		}
	}
	return json.Marshal(&w)
}

// UnmarshalJSON reads a state MarshalJSON wrote, of this version or an older one; null leaves the
// state as it is.
func (s *ToolLoopState) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var version struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(b, &version); err != nil {
		return err
	}
	switch {
	case version.Version == nil:
		return invalid("ToolLoopState", `has no "version": it is not a state ToolsDeferredError.State wrote`)
	case *version.Version > toolLoopStateVersion:
		return invalid("ToolLoopState", "is of version %d, newer than this SDK reads (%d): resume it with a newer infergate-go",
			*version.Version, toolLoopStateVersion)
	case *version.Version < 1:
		return invalid("ToolLoopState", "has version %d; versions start at 1", *version.Version)
	}
	var w savedLoop
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if err := w.check(); err != nil {
		return err
	}
	if len(w.RequestExtra) > 0 {
		w.Request.Extra = make(map[string]any, len(w.RequestExtra))
		for k, v := range w.RequestExtra {
			w.Request.Extra[k] = v
		}
	}
	w.RequestExtra = nil
	// What decodes but would not encode (a message's Extra key the request refuses, say) could
	// not be sent either.
	if _, err := json.Marshal(ToolLoopState{saved: &w}); err != nil {
		return invalid("ToolLoopState", "cannot be sent again: %v", err)
	}
	s.saved = &w
	return nil
}

// check refuses a decoded state that the loop could not go on from.
func (w *savedLoop) check() error {
	msgs := w.Request.Messages
	switch {
	case w.Step < 1:
		return invalid("ToolLoopState.step", "is %d; a paused loop has taken a turn", w.Step)
	case w.Tokens < 0 || w.FallbackStart < 0 || w.Spend != nil && w.Spend.Sign() < 0:
		return invalid("ToolLoopState", "counts below zero")
	case len(msgs) == 0 || msgs[len(msgs)-1].Role != RoleAssistant:
		return invalid("ToolLoopState.request.messages", "do not end with the assistant turn whose calls were deferred")
	case len(msgs[len(msgs)-1].ToolCalls) != len(w.Outputs):
		return invalid("ToolLoopState.outputs", "has %d entries for the turn's %d calls", len(w.Outputs), len(msgs[len(msgs)-1].ToolCalls))
	case !slices.Contains(w.Outputs, nil):
		return invalid("ToolLoopState.outputs", "has no deferred call")
	}
	return nil
}

// turn returns the paused turn's calls.
func (w *savedLoop) turn() []ToolCall { return w.Request.Messages[len(w.Request.Messages)-1].ToolCalls }

// ResumeTools goes on with a tool loop that ToolLoop.Defer stopped, in this process or another:
// state is the ToolsDeferredError's State (or its JSON, decoded), outcomes answer each pending
// call, and loop gives the tools, which must include every tool of the state, and the bounds,
// which count the turns and tokens before the pause too (ToolRunResult.Steps and Usage as well).
// The model reads the outcomes as the pending calls' results, in the order it asked for the
// calls, and the loop goes on as RunTools does; Events reports each outcome as a ToolEventResult
// of the paused turn first (a refusal's Err is a *ToolError of stage ToolStageRefused). The
// request's settings come from state; opts are this call's, credentials included.
//
// An outcome for a call that is not pending (unknown, or one that ran), a pending call without an
// outcome, a call answered twice, and a tool of the state missing from loop.Tools are
// *ValidationErrors, before anything is sent.
//
// POST /api/v1/chat/completions (with "stream": true), once per model turn
func (s *ChatService) ResumeTools(ctx context.Context, state ToolLoopState, outcomes []ToolOutcome, loop ToolLoop, opts ...Option) *ToolRun {
	r := &ToolRun{svc: s, ctx: ctx, loop: loop, opts: opts, resume: &resumption{saved: state.saved, outcomes: slices.Clone(outcomes)}}
	if state.saved != nil {
		r.req = state.saved.Request
		r.req.Messages = slices.Clone(r.req.Messages)
		r.req.Extra = maps.Clone(r.req.Extra)
	}
	return r
}

// errEmptyState refuses to resume the zero ToolLoopState.
func errEmptyState() error {
	return invalid("state", "is empty: use a ToolsDeferredError's State, or its JSON decoded")
}

// resumption is what ResumeTools goes on from.
type resumption struct {
	saved    *savedLoop
	outcomes []ToolOutcome
}

// deferCalls asks ToolLoop.Defer about each call of a known tool, one at a time, and returns the
// calls to run now and, by index in calls, those deferred. A Defer that panics defers the call,
// which is then not run without a decision.
func (r *ToolRun) deferCalls(calls []ToolCall) (run []ToolCall, deferred []bool) {
	if r.loop.Defer == nil {
		return calls, nil
	}
	deferred = make([]bool, len(calls))
	for i, call := range calls {
		if r.tools[call.Function.Name] != nil && r.askDefer(call) {
			deferred[i] = true
			continue
		}
		run = append(run, call)
	}
	return run, deferred
}

func (r *ToolRun) askDefer(call ToolCall) (later bool) {
	defer func() {
		if recover() != nil {
			later = true
		}
	}()
	return r.loop.Defer(call)
}

// pause ends the loop at step, whose calls were deferred as deferred says; results are those of
// its other calls, in order, and turnEnd the length of the transcript up to the turn.
func (r *ToolRun) pause(step, tokens int, budget *costBudget, turnEnd int, calls []ToolCall, deferred []bool, results []ToolResult) error {
	w := &savedLoop{Version: toolLoopStateVersion, Request: r.req, Tools: slices.Clone(r.names), Step: step,
		Usage: r.result.Usage, Tokens: tokens, Outputs: make([]*string, len(calls)), FallbackStart: r.sticky.start}
	if budget != nil {
		spend := budget.spent
		w.Spend = &spend
	}
	w.Request.Messages = slices.Clone(r.result.Messages[:turnEnd])
	w.Request.Extra = maps.Clone(r.req.Extra)
	var pending []ToolCall
	for i, call := range calls {
		if deferred[i] {
			pending = append(pending, call)
			continue
		}
		w.Outputs[i] = &results[0].Output
		results = results[1:]
	}
	return &ToolsDeferredError{State: ToolLoopState{saved: w}, Pending: pending}
}

// resumeFrom checks the resumption against the prepared loop, then adds the paused turn's results
// to the transcript, reporting the outcomes, and returns the tokens counted so far. The spend the
// state carries is added to budget, which refuses it in another currency than its bound's.
func (r *ToolRun) resumeFrom(budget *costBudget, yield func(ToolEvent, error) bool) (int, error) {
	w := r.resume.saved
	for _, name := range w.Tools {
		if r.tools[name] == nil {
			return 0, invalid("ToolLoop.Tools", "lack the state's tool %q", name)
		}
	}
	if budget != nil && w.Spend != nil {
		spent, err := budget.spent.Add(*w.Spend)
		if err != nil {
			return 0, fmt.Errorf("infergate: the state's spend and ToolLoop.MaxCost: %w", err)
		}
		budget.spent = spent
	}
	calls := w.turn()
	answers, err := matchOutcomes(calls, w.Outputs, r.resume.outcomes)
	if err != nil {
		return 0, err
	}
	res := &r.result
	res.Steps, res.Usage = w.Step, w.Usage
	r.sticky.start = w.FallbackStart
	for i, call := range calls {
		if w.Outputs[i] != nil {
			res.Messages = append(res.Messages, ToolResultMessage(call.ID, *w.Outputs[i]))
			continue
		}
		tr := ToolResult{Call: call, Output: answers[i].Output}
		if answers[i].Refused {
			te := &ToolError{Tool: call.Function.Name, Stage: ToolStageRefused, Err: errors.New(answers[i].Output)}
			tr.Output, tr.Err = te.Feedback(), te
		}
		res.Messages = append(res.Messages, ToolResultMessage(call.ID, tr.Output))
		if !yield(ToolEvent{Kind: ToolEventResult, Step: w.Step, Result: &tr}, nil) {
			return 0, errStopped
		}
	}
	return w.Tokens, nil
}

// matchOutcomes gives each pending call (a nil output) its outcome, by call id, in order among
// calls that share an id.
func matchOutcomes(calls []ToolCall, outputs []*string, outcomes []ToolOutcome) ([]ToolOutcome, error) {
	answers := make([]ToolOutcome, len(calls))
	answered := make([]bool, len(calls))
	for k, o := range outcomes {
		field := fmt.Sprintf("outcomes[%d].CallID", k)
		i := -1
		for j := range calls {
			if calls[j].ID == o.CallID && outputs[j] == nil && !answered[j] {
				i = j
				break
			}
		}
		if i >= 0 {
			answers[i], answered[i] = o, true
			continue
		}
		switch {
		case hasPending(calls, outputs, o.CallID):
			return nil, invalid(field, "call %q is answered twice", o.CallID)
		case slices.ContainsFunc(calls, func(c ToolCall) bool { return c.ID == o.CallID }):
			return nil, invalid(field, "call %q already ran; only deferred calls take an outcome", o.CallID)
		}
		return nil, invalid(field, "no deferred call has id %q", o.CallID)
	}
	for i, call := range calls {
		if outputs[i] == nil && !answered[i] {
			return nil, invalid("outcomes", "deferred call %q (%s) has no outcome", call.ID, call.Function.Name)
		}
	}
	return answers, nil
}

func hasPending(calls []ToolCall, outputs []*string, id string) bool {
	for i, c := range calls {
		if c.ID == id && outputs[i] == nil {
			return true
		}
	}
	return false
}
