package infergate

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Defaults of the tool loop, documented on ToolLoop's fields.
const (
	defaultMaxToolSteps   = 10 // model turns before the loop gives up
	defaultToolGoroutines = 4  // tool calls of one turn that run at once
	defaultMaxToolCalls   = 64 // tool calls one model turn may ask for
)

// ErrToolStepLimit matches the error of a tool loop that reached its step limit (a *ToolLimitError of ToolLimitSteps).
var ErrToolStepLimit = errors.New("infergate: tool loop reached its step limit")

// ErrToolCallLimit matches the error of a tool loop whose model asked for more calls in one turn
// than ToolLoop.MaxToolCalls allows (a *ToolLimitError of ToolLimitCalls).
var ErrToolCallLimit = errors.New("infergate: a model turn asked for too many tool calls")

// ErrToolTokenLimit matches the error of a tool loop whose turns spent more tokens than
// ToolLoop.MaxTokens allows (a *ToolLimitError of ToolLimitTokens).
var ErrToolTokenLimit = errors.New("infergate: tool loop spent its token budget")

// ErrToolCostLimit matches the error of a tool loop whose turns cost more than ToolLoop.MaxCost
// allows (a *ToolLimitError of ToolLimitCost).
var ErrToolCostLimit = errors.New("infergate: tool loop spent its cost budget")

// ToolLoop configures ChatService.RunTools. The zero value runs no tools; set Tools.
type ToolLoop struct {
	Tools []*FuncTool // the functions the model may call: NewTool, NewToolFromSchema, or mcptools' tools
	// MaxSteps bounds the model turns (10 when zero; a negative bound here or in Goroutines,
	// MaxToolCalls or MaxTokens is refused before anything is sent). The loop then ends with a
	// *ToolLimitError (ToolLimitSteps) that keeps the transcript.
	MaxSteps int
	// Goroutines bounds how many tool calls of one turn run at once (4 when zero);
	// no more goroutines than that run the calls.
	Goroutines int
	// MaxToolCalls bounds the tool calls one model turn may ask for (64 when zero). A
	// turn that asks for more ends the loop with a *ToolLimitError (ToolLimitCalls) before any of its calls runs,
	// and is not added to the transcript.
	MaxToolCalls int
	// MaxTokens is a token budget for the whole loop (none when zero). The tokens of every turn
	// are summed (each turn's total, or its input plus output where the total is absent, as
	// UsageOrEstimate gives them; as Usage.Add sums, a negative count is 0 and the sum stops at
	// math.MaxInt); once the sum exceeds MaxTokens, the loop starts no new model
	// turn and ends with a *ToolLimitError (ToolLimitTokens) that keeps the transcript, in which
	// the tool calls of the turn that crossed the budget have run. Reaching it exactly is not
	// exceeding it.
	MaxTokens int
	// MaxCost is a money budget for the whole loop (none when zero; a negative one is refused
	// before anything is sent). Each turn costs its usage (as MaxTokens counts it,
	// UsageOrEstimate) at the prices of the model that served it, as ModelPrices.Cost computes
	// them, exactly; once the sum exceeds MaxCost, the loop ends as MaxTokens ends it, with a
	// *ToolLimitError (ToolLimitCost) whose Spent is the sum. The prices are Models.Get's (the
	// client's cached catalogue, downloaded once when it holds none, completed with WithModelFacts
	// and the built-in table), for the request's model and every fallback: one without known
	// prices is refused before anything is sent with a *ValidationError, and prices in two
	// currencies, or in another currency than MaxCost's, with an error matching
	// ErrCurrencyMismatch. The gateway bills in USD: say so, as Money{Amount: a, Currency:
	// CurrencyUSD}.
	MaxCost Money
	// Approve, if set, is asked before each call runs (after its arguments passed the tool's
	// schema; calls of unknown tools are not asked about). A nil error runs the call; an error skips
	// it, and the error's text is sent to the model as the call's result, so that it learns the call
	// was refused; the ToolResult's Err is then a *ToolError of stage ToolStageRefused that wraps it.
	// Approve is never called concurrently: the calls of a turn wait for it one at a time, which
	// suits asking a person. ctx is the loop's.
	Approve func(ctx context.Context, call ToolCall) error
	// Defer, if set, is asked about each call of a known tool of a model turn, one at a time,
	// before any of the turn's calls runs (before Approve, and before the arguments are checked).
	// A call for which it returns true (or panics) is not run: the loop runs the turn's other calls,
	// then ends with a *ToolsDeferredError whose State ChatService.ResumeTools goes on from, once
	// each deferred call has an outcome, in this process or another.
	Defer func(call ToolCall) bool
	// ToolTimeout, if positive, bounds each tool call: the check of its arguments against the
	// tool's schema and the function's run together (not the wait for Approve). The call's context
	// is cancelled when it expires (an MCP call is then cancelled on its server too), and the
	// call's result is a *ToolError of stage ToolStageTimeout that the model reads; the loop goes
	// on. A tool that ignores its context is waited for, since a goroutine cannot be stopped from
	// outside.
	ToolTimeout time.Duration
	// Compact, if set and WithContextGuard is on, is called before a model turn that would not fit
	// any of its models' context windows (see WithContextGuard), with the transcript and limit, the
	// largest of those windows, to return a shorter transcript: the caller's policy (drop the oldest
	// turns, summarise them through another call, …). It is called again while the turn still does
	// not fit, and the loop goes on with what it returns (ToolRunResult.Messages included). Without
	// it, such a turn ends the loop with a *ContextWindowError whose Messages is the transcript. A
	// Compact that fails, or returns a transcript the counter (WithTokenCounter) finds no shorter,
	// ends the loop with a *CompactError; nothing more is sent. msgs is the loop's copy, which
	// Compact may change.
	Compact func(ctx context.Context, msgs []Message, limit int) ([]Message, error)
}

// ToolEventKind says what a ToolEvent reports.
type ToolEventKind uint8

// The events of a tool loop, in the order they happen within a step.
const (
	ToolEventDelta  ToolEventKind = iota + 1 // a chunk of the model's streamed turn (Chunk)
	ToolEventTurn                            // the model's turn is complete (Message, the assistant turn)
	ToolEventResult                          // a tool call finished (Result), in the order calls finish
)

// ToolEvent is one thing that happened in a tool loop.
type ToolEvent struct {
	Kind    ToolEventKind       // which of Chunk, Message and Result is set
	Step    int                 // the model turn, from 1
	Chunk   ChatCompletionChunk // for ToolEventDelta
	Message *Message            // for ToolEventTurn
	Result  *ToolResult         // for ToolEventResult
}

// ToolResult is one tool call and what came of it.
type ToolResult struct {
	Call     ToolCall      // the call as the model asked for it
	Output   string        // what the model receives: the result, or the *ToolError's Feedback
	Err      error         // a *ToolError when the call failed; its Error text is the one to log
	Duration time.Duration // from the call's start to its result, a wait for ToolLoop.Approve included
}

// ToolRunResult is how a tool loop ended.
type ToolRunResult struct {
	Answer   *ChatCompletion // the last model turn: the answer without tool calls
	Messages []Message       // the whole conversation: the request's messages, every turn and tool result
	Usage    Usage           // tokens summed over all turns, as Usage.Add sums
	Steps    int             // model turns taken
}

// ToolLimit names the bound of ToolLoop that ended a loop.
type ToolLimit string

// The bounds a tool loop can reach.
const (
	ToolLimitSteps  ToolLimit = "steps"  // ToolLoop.MaxSteps: model turns
	ToolLimitCalls  ToolLimit = "calls"  // ToolLoop.MaxToolCalls: tool calls one model turn asked for
	ToolLimitTokens ToolLimit = "tokens" // ToolLoop.MaxTokens: tokens spent by all turns
	ToolLimitCost   ToolLimit = "cost"   // ToolLoop.MaxCost: money spent by all turns
)

// ToolLimitError ends a tool loop that reached one of its bounds. It keeps the transcript, so that
// the conversation can be continued; errors.Is matches ErrToolStepLimit, ErrToolCallLimit,
// ErrToolTokenLimit or ErrToolCostLimit by Limit.
type ToolLimitError struct {
	Limit ToolLimit // which bound: ToolLimitSteps, ToolLimitCalls, ToolLimitTokens or ToolLimitCost
	Max   int       // ToolLoop.MaxSteps, MaxToolCalls or MaxTokens, defaults applied; 0 for ToolLimitCost
	// Requested is the number of calls the turn asked for, for ToolLimitCalls; 0 for ToolLimitSteps.
	Requested int
	// Step is the model turn, from 1, at which the loop ended: the last one taken for
	// ToolLimitSteps (equal to Max), ToolLimitTokens and ToolLimitCost, the one that asked for too
	// many calls for ToolLimitCalls.
	Step int
	// Messages is the transcript: the request's messages, every turn and tool result. For
	// ToolLimitCalls it stops before the turn that asked for too many calls, none of which ran.
	Messages []Message
	Usage    Usage // tokens summed over all turns, the last one included, as Usage.Add sums
	// MaxCost and Spent are, for ToolLimitCost, the bound (ToolLoop.MaxCost) and what all turns
	// cost, the last one included: more than MaxCost, exactly.
	MaxCost, Spent Money
}

// Error says which bound the loop reached.
func (e *ToolLimitError) Error() string {
	switch e.Limit {
	case ToolLimitCalls:
		return fmt.Sprintf("infergate: model turn %d asked for %d tool calls; ToolLoop.MaxToolCalls allows %d", e.Step, e.Requested, e.Max)
	case ToolLimitTokens:
		return fmt.Sprintf("infergate: tool loop stopped after %d model turns, which spent more tokens than ToolLoop.MaxTokens allows (%d)", e.Step, e.Max)
	case ToolLimitCost:
		return fmt.Sprintf("infergate: tool loop stopped after %d model turns, which cost %s, more than ToolLoop.MaxCost allows (%s)", e.Step, e.Spent, e.MaxCost)
	}
	return fmt.Sprintf("infergate: tool loop stopped after %d model turns without a final answer", e.Max)
}

// Is matches ErrToolStepLimit, ErrToolCallLimit, ErrToolTokenLimit or ErrToolCostLimit, by Limit.
func (e *ToolLimitError) Is(target error) bool {
	switch e.Limit {
	case ToolLimitSteps:
		return target == ErrToolStepLimit
	case ToolLimitCalls:
		return target == ErrToolCallLimit
	case ToolLimitTokens:
		return target == ErrToolTokenLimit
	case ToolLimitCost:
		return target == ErrToolCostLimit
	}
	return false
}

// ToolRun is a tool loop in progress. Range over Events to watch it, or call Wait; either runs it,
// and one goroutine may range over Events while another waits in Wait.
type ToolRun struct {
	svc    *ChatService
	ctx    context.Context
	req    ChatRequest
	loop   ToolLoop
	opts   []Option
	cfg    *config // the loop's configuration, for its observers
	tools  map[string]*FuncTool
	names  []string // the tools' names, in the loop's order
	sticky *stickyModel
	resume *resumption // set by ResumeTools
	result ToolRunResult
	err    error
	once   runOnce
}

// RunTools runs a conversation in which the model may call tools: it streams each model turn, runs
// the calls the turn asks for (parallel calls concurrently, each with ctx), appends the assistant
// turn (with its Reasoning) and the tool results, and asks again, until the model answers without
// calling a tool. Tool errors, arguments that do not match a tool's schema, panics in a tool and
// calls of unknown tools go back to the model as the call's result. The loop's tools are added to
// req.Tools. Only the first choice is followed.
//
// Nothing is sent until Events is ranged over or Wait is called.
//
// POST /api/v1/chat/completions (with "stream": true), once per model turn
func (s *ChatService) RunTools(ctx context.Context, req ChatRequest, loop ToolLoop, opts ...Option) *ToolRun {
	return &ToolRun{svc: s, ctx: ctx, req: req, loop: loop, opts: opts}
}

// Wait returns how the loop ended once it has: the result with its answer, or the error that
// ended it (the result then holds the transcript so far). Called before Events is ranged over, it
// runs the loop itself (ranging over Events afterwards yields nothing). Called while another
// goroutine ranges over Events, it waits for that loop to end, its tools included: at the answer,
// on ctx's cancellation, or when that range breaks (Wait then returns context.Canceled); so it
// must not be called from inside that range. Every call returns the same result.
func (r *ToolRun) Wait() (*ToolRunResult, error) {
	if r.once.claim() {
		r.execute(func(ToolEvent, error) bool { return true })
	} else {
		r.once.wait()
	}
	return &r.result, r.err
}

// Events runs the loop, reporting each step as it happens; a failure arrives as the last pair.
// Breaking out of the loop stops it: running tools see their context cancelled, and Events returns
// only once they have. A ToolRun runs once; ranging again (or after Wait, or while another
// goroutine ranges) yields nothing.
func (r *ToolRun) Events() iter.Seq2[ToolEvent, error] {
	return func(yield func(ToolEvent, error) bool) {
		if r.once.claim() {
			r.execute(yield)
		}
	}
}

// execute runs the loop, reporting to yield, and ends the run with its result set; the failure is
// yielded after that, so that a Wait on another goroutine does not wait for the range's body.
func (r *ToolRun) execute(yield func(ToolEvent, error) bool) {
	ended := false
	var obs *observation
	defer func() {
		if !ended {
			r.err = errRangePanicked
			obs.end(&r.result, errRangePanicked)
			r.once.end()
		}
	}()
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	var err error
	if r.cfg, err = r.svc.client.configure(r.opts); err == nil {
		ctx, obs = r.cfg.observeLoop(ctx, &r.req)
		err = r.run(ctx, yield)
	}
	stopped := err == errStopped
	if stopped {
		err = context.Canceled
	}
	obs.end(&r.result, err)
	r.err, ended = err, true
	r.once.end()
	if err != nil && !stopped {
		yield(ToolEvent{}, err)
	}
}

var errStopped = errors.New("infergate: the caller stopped the tool loop")

func (r *ToolRun) run(ctx context.Context, yield func(ToolEvent, error) bool) error {
	if r.resume != nil && r.resume.saved == nil {
		return errEmptyState()
	}
	req, err := r.prepare()
	if err != nil {
		return err
	}
	r.sticky = new(stickyModel)
	r.opts = append(slices.Clip(r.opts), withSticky(r.sticky))
	budget, err := r.cfg.costBudget(ctx, req.Model, r.loop.MaxCost, r.sticky)
	if err != nil {
		return err
	}
	res := &r.result
	res.Messages = slices.Clone(r.req.Messages)
	spent := 0
	if r.resume != nil {
		if spent, err = r.resumeFrom(budget, yield); err != nil {
			return err
		}
	}
	for step := res.Steps + 1; ; step++ {
		if r.loop.MaxTokens > 0 && spent > r.loop.MaxTokens {
			return &ToolLimitError{Limit: ToolLimitTokens, Max: r.loop.MaxTokens, Step: step - 1, Messages: res.Messages, Usage: res.Usage}
		}
		if budget.exceeded() {
			return &ToolLimitError{Limit: ToolLimitCost, MaxCost: r.loop.MaxCost, Spent: budget.spent, Step: step - 1,
				Messages: res.Messages, Usage: res.Usage}
		}
		if step > r.loop.MaxSteps {
			return &ToolLimitError{Limit: ToolLimitSteps, Max: r.loop.MaxSteps, Step: step - 1, Messages: res.Messages, Usage: res.Usage}
		}
		req.Messages = res.Messages
		if err := r.fit(ctx, &req); err != nil {
			return err
		}
		answer, err := r.turn(ctx, req, step, yield)
		if err != nil {
			return err
		}
		res.Steps, res.Answer = step, answer
		turnUsage := answer.UsageOrEstimate()
		res.Usage = res.Usage.Add(turnUsage)
		spent = addCount(spent, usageTokens(turnUsage))
		budget.add(turnUsage)
		msg := firstMessage(answer, step)
		if len(msg.ToolCalls) > r.loop.MaxToolCalls {
			return &ToolLimitError{Limit: ToolLimitCalls, Max: r.loop.MaxToolCalls, Requested: len(msg.ToolCalls), Step: step,
				Messages: res.Messages, Usage: res.Usage}
		}
		res.Messages = append(res.Messages, msg)
		if !yield(ToolEvent{Kind: ToolEventTurn, Step: step, Message: &msg}, nil) {
			return errStopped
		}
		if len(msg.ToolCalls) == 0 {
			return nil
		}
		turnEnd := len(res.Messages)
		calls, deferred := r.deferCalls(msg.ToolCalls)
		results, err := r.runCalls(ctx, step, calls, yield)
		for _, tr := range results {
			res.Messages = append(res.Messages, ToolResultMessage(tr.Call.ID, tr.Output))
		}
		if err != nil {
			return err
		}
		if slices.Contains(deferred, true) {
			return r.pause(step, spent, budget, turnEnd, msg.ToolCalls, deferred, results)
		}
	}
}

// prepare checks the loop and returns the request with the loop's tools added.
func (r *ToolRun) prepare() (ChatRequest, error) {
	req := r.req
	for _, bound := range []struct {
		field string
		v     int
	}{{"MaxSteps", r.loop.MaxSteps}, {"Goroutines", r.loop.Goroutines}, {"MaxToolCalls", r.loop.MaxToolCalls}, {"MaxTokens", r.loop.MaxTokens}} {
		if bound.v < 0 {
			return req, invalid("ToolLoop."+bound.field, "must not be negative, got %d", bound.v)
		}
	}
	r.loop.MaxSteps = positiveOr(r.loop.MaxSteps, defaultMaxToolSteps)
	r.loop.Goroutines = positiveOr(r.loop.Goroutines, defaultToolGoroutines)
	r.loop.MaxToolCalls = positiveOr(r.loop.MaxToolCalls, defaultMaxToolCalls)
	if r.loop.ToolTimeout < 0 {
		return req, invalid("ToolLoop.ToolTimeout", "must not be negative, got %s", r.loop.ToolTimeout)
	}
	r.tools = map[string]*FuncTool{}
	req.Tools = slices.Clone(req.Tools)
	for i, t := range r.loop.Tools {
		if t == nil {
			return req, invalid("ToolLoop.Tools["+strconv.Itoa(i)+"]", "is nil")
		}
		if r.tools[t.Name()] != nil || slices.ContainsFunc(r.req.Tools, func(d Tool) bool { return d.Function.Name == t.Name() }) {
			return req, invalid("ToolLoop.Tools["+strconv.Itoa(i)+"]", "tool %q is given twice", t.Name())
		}
		r.tools[t.Name()] = t
		r.names = append(r.names, t.Name())
		req.Tools = append(req.Tools, t.Definition())
	}
	return req, req.Validate()
}

// turn streams one model turn, reporting its chunks.
func (r *ToolRun) turn(ctx context.Context, req ChatRequest, step int, yield func(ToolEvent, error) bool) (*ChatCompletion, error) {
	stream, err := r.svc.Stream(ctx, req, r.opts...)
	if err != nil {
		return nil, err
	}
	defer stream.Close()
	for stream.Next() {
		if !yield(ToolEvent{Kind: ToolEventDelta, Step: step, Chunk: stream.Current()}, nil) {
			return nil, errStopped
		}
	}
	if err := stream.Err(); err != nil {
		return nil, err
	}
	return stream.Completion(), nil
}

// firstMessage returns the turn's assistant message, with an id on every tool call so that results
// can answer it.
func firstMessage(answer *ChatCompletion, step int) Message {
	msg := Message{Role: RoleAssistant}
	if len(answer.Choices) > 0 {
		msg = answer.Choices[0].Message
	}
	msg.ToolCalls = slices.Clone(msg.ToolCalls)
	for i := range msg.ToolCalls {
		if msg.ToolCalls[i].ID == "" {
			msg.ToolCalls[i].ID = fmt.Sprintf("call_%d_%d", step, i)
		}
	}
	return msg
}

func positiveOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// runOnce is the one run of an ObjectStream or a ToolRun, which callers may watch by ranging over
// its iterator, await with Wait, or both at once from different goroutines: whoever comes first
// runs it; a Wait that comes later waits for the run to end, and an iterator that comes later
// yields nothing. The run's result is set before its end is announced, so a Wait that returns
// sees it whole.
type runOnce struct {
	mu      sync.Mutex
	started bool
	done    chan struct{} // closed once the run has ended
}

// errRangePanicked ends a run whose loop body panicked, for a Wait waiting on another goroutine.
var errRangePanicked = errors.New("infergate: the loop ranging over the run panicked")

// channel returns done, made on first use so that the zero runOnce works.
func (o *runOnce) channel() chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done == nil {
		o.done = make(chan struct{})
	}
	return o.done
}

// claim reports whether the caller comes first and so runs it; it must then call end.
func (o *runOnce) claim() bool {
	o.channel()
	o.mu.Lock()
	defer o.mu.Unlock()
	first := !o.started
	o.started = true
	return first
}

// end announces that the run has ended; its result must be set.
func (o *runOnce) end() { close(o.channel()) }

// wait returns once the run has ended.
func (o *runOnce) wait() { <-o.channel() }
