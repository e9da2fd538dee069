package temporalinfergate_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/temporalinfergate"
	"github.com/infergate/infergate-go/temporalinfergate/temporalinfergatetest"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// The history of a run (its activities, their results, the signals that answered its deferred
// calls), replayed by Temporal's replayer against the same workflow, gives the same commands: the
// loop is deterministic. Replayed against a loop that defers differently, it does not, which
// shows the replayer compares.
func TestRunToolsReplaysItsHistory(t *testing.T) {
	t.Parallel()
	loop := temporalinfergate.ToolLoop{Tools: []string{"lookup", "refund", "weather"}, DeferTools: []string{"refund"}}
	history := recordHistory(t, loop)
	if n := len(history.Events); n < 20 {
		t.Fatalf("a history of %d events", n)
	}
	replay := func(loop temporalinfergate.ToolLoop) error {
		replayer := worker.NewWorkflowReplayer()
		replayer.RegisterWorkflowWithOptions(loopWorkflow(question("Refund A-17."), loop), workflow.RegisterOptions{Name: "agent"})
		// The replayer logs the workflow's panic on a history it does not match: the error says it.
		return replayer.ReplayWorkflowHistory(log.NewStructuredLogger(slog.New(slog.DiscardHandler)), history)
	}
	if err := replay(loop); err != nil {
		t.Fatalf("replaying the run's own history: %v", err)
	}
	loop.DeferTools = nil
	// TMPRL1100 is Temporal's code for a workflow that did not do what its history says.
	if err := replay(loop); err == nil || !strings.Contains(err.Error(), "TMPRL1100") {
		t.Fatalf("replaying against a loop that runs the deferred call: err = %v", err)
	}
}

// recordHistory runs the workflow "agent" (RunTools with loop) on the test environment: the model
// asks for three calls (refund deferred) and then two more in a second turn, an outcome arrives
// by signal an hour later, and the model answers. It returns the run's history, built from what
// the environment reports: each activity scheduled, with its id and result, and each signal.
func recordHistory(t *testing.T, loop temporalinfergate.ToolLoop) *historypb.History {
	t.Helper()
	env := newEnv(t)
	var lookup, refund, weather counter
	gw := temporalinfergatetest.Register(t, env, []*infergate.FuncTool{lookup.tool(t, "lookup"), refund.tool(t, "refund"), weather.tool(t, "weather")})
	gw.Enqueue(
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
			{ID: "c1", Name: "lookup", Arguments: `{"city":"A-17"}`},
			{ID: "c2", Name: "refund", Arguments: `{"city":"A-17"}`},
			{ID: "c3", Name: "weather", Arguments: `{"city":"Rome"}`},
		}},
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
			{ID: "c4", Name: "lookup", Arguments: `{"city":"B-2"}`},
			{ID: "c5", Name: "weather", Arguments: `{"city":"Oslo"}`},
		}},
		gatewaytest.Reply{Respond: toolResults},
	)
	var h historyBuilder
	dc := converter.GetDefaultDataConverter()
	env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{&scheduleRecorder{onSchedule: func(typ string, _ []any) { h.scheduled(typ) }}}})
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		h.start(info.ActivityID)
	})
	env.SetOnActivityCompletedListener(func(info *activity.Info, result converter.EncodedValue, err error) {
		if err != nil {
			t.Errorf("activity %s: %v", info.ActivityType.Name, err)
			return
		}
		var raw json.RawMessage
		if err := result.Get(&raw); err != nil {
			t.Error(err)
		}
		h.completed(info.ActivityID, payloads(t, dc, raw))
	})
	outcome := infergate.ToolOutcome{CallID: "c2", Output: "refunded by Ann"}
	env.RegisterDelayedCallback(func() {
		h.signaled(temporalinfergate.SignalToolOutcome, payloads(t, dc, outcome))
		env.SignalWorkflow(temporalinfergate.SignalToolOutcome, outcome)
	}, time.Hour)
	env.RegisterWorkflowWithOptions(loopWorkflow(question("Refund A-17."), loop), workflow.RegisterOptions{Name: "agent"})
	env.ExecuteWorkflow("agent")
	var res infergate.ToolRunResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.Steps != 3 || refund.runs.Load() != 0 || lookup.runs.Load() != 2 {
		t.Fatalf("steps %d, refund ran %d times, lookup %d", res.Steps, refund.runs.Load(), lookup.runs.Load())
	}
	return h.build(t, payloads(t, dc, res))
}

func payloads(t *testing.T, dc converter.DataConverter, v any) *commonpb.Payloads {
	t.Helper()
	p, err := dc.ToPayloads(v)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// historyBuilder writes the events a Temporal server records for a run, from what the test
// environment reports: the activities the workflow schedules (through scheduleRecorder), in order,
// and what it receives: each activity's result, each signal, each delivered to the workflow in a
// workflow task of its own, as the environment delivers them.
type historyBuilder struct {
	mu     sync.Mutex
	trace  []traced
	envIDs []int // the environment's activity ids, which it numbers in the order of scheduling
}

// traced is one thing the workflow did (scheduled an activity) or received (a result, a signal).
type traced struct {
	schedule string // the activity type scheduled
	envID    int    // the environment's id of the activity completed
	signal   string
	payloads *commonpb.Payloads
}

func (h *historyBuilder) scheduled(typ string) { h.record(traced{schedule: typ}) }

func (h *historyBuilder) completed(envID string, result *commonpb.Payloads) {
	id, _ := strconv.Atoi(envID)
	h.record(traced{envID: id, payloads: result})
}

func (h *historyBuilder) signaled(name string, input *commonpb.Payloads) {
	h.record(traced{signal: name, payloads: input})
}

func (h *historyBuilder) start(envID string) {
	id, _ := strconv.Atoi(envID)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.envIDs = append(h.envIDs, id)
}

func (h *historyBuilder) record(e traced) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.trace = append(h.trace, e)
}

// build writes the history, ending with the workflow's completion with result.
func (h *historyBuilder) build(t *testing.T, result *commonpb.Payloads) *historypb.History {
	t.Helper()
	slices.Sort(h.envIDs)
	var w historyWriter
	w.add(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, &historypb.HistoryEvent_WorkflowExecutionStartedEventAttributes{WorkflowExecutionStartedEventAttributes: &historypb.WorkflowExecutionStartedEventAttributes{
		WorkflowType: &commonpb.WorkflowType{Name: "agent"}, TaskQueue: &taskqueuepb.TaskQueue{Name: "agents"}}})
	w.task()
	var scheduledAt []int64 // by order of scheduling: the event that scheduled the activity
	for _, e := range h.trace {
		switch {
		case e.schedule != "":
			// A worker names an activity by the id of the event that schedules it.
			id := w.next()
			scheduledAt = append(scheduledAt, id)
			w.add(enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, &historypb.HistoryEvent_ActivityTaskScheduledEventAttributes{ActivityTaskScheduledEventAttributes: &historypb.ActivityTaskScheduledEventAttributes{
				ActivityId: strconv.FormatInt(id, 10), ActivityType: &commonpb.ActivityType{Name: e.schedule},
				TaskQueue: &taskqueuepb.TaskQueue{Name: "agents"}, WorkflowTaskCompletedEventId: w.lastTask}})
		case e.signal != "":
			w.add(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, &historypb.HistoryEvent_WorkflowExecutionSignaledEventAttributes{WorkflowExecutionSignaledEventAttributes: &historypb.WorkflowExecutionSignaledEventAttributes{
				SignalName: e.signal, Input: e.payloads}})
			w.task()
		default:
			i := slices.Index(h.envIDs, e.envID)
			if i < 0 || i >= len(scheduledAt) {
				t.Fatalf("activity %d completed, but %d were scheduled: %v", e.envID, len(scheduledAt), h.envIDs)
			}
			sched := scheduledAt[i]
			started := w.add(enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED, &historypb.HistoryEvent_ActivityTaskStartedEventAttributes{ActivityTaskStartedEventAttributes: &historypb.ActivityTaskStartedEventAttributes{
				ScheduledEventId: sched, Attempt: 1}})
			w.add(enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, &historypb.HistoryEvent_ActivityTaskCompletedEventAttributes{ActivityTaskCompletedEventAttributes: &historypb.ActivityTaskCompletedEventAttributes{
				ScheduledEventId: sched, StartedEventId: started, Result: e.payloads}})
			w.task()
		}
	}
	w.add(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, &historypb.HistoryEvent_WorkflowExecutionCompletedEventAttributes{WorkflowExecutionCompletedEventAttributes: &historypb.WorkflowExecutionCompletedEventAttributes{
		Result: result, WorkflowTaskCompletedEventId: w.lastTask}})
	return &historypb.History{Events: w.events}
}

// historyWriter numbers events as a server does.
type historyWriter struct {
	events   []*historypb.HistoryEvent
	lastTask int64 // the last completed workflow task's event
}

func (w *historyWriter) next() int64 { return int64(len(w.events) + 1) }

// add appends an event; attrs is one of the HistoryEvent_*Attributes wrappers, whose interface
// the proto package does not export.
func (w *historyWriter) add(typ enumspb.EventType, attrs any) int64 {
	e := &historypb.HistoryEvent{EventId: w.next(), EventType: typ}
	reflect.ValueOf(e).Elem().FieldByName("Attributes").Set(reflect.ValueOf(attrs))
	w.events = append(w.events, e)
	return e.EventId
}

// task adds a workflow task: scheduled, started, completed.
func (w *historyWriter) task() {
	sched := w.add(enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, &historypb.HistoryEvent_WorkflowTaskScheduledEventAttributes{WorkflowTaskScheduledEventAttributes: &historypb.WorkflowTaskScheduledEventAttributes{
		TaskQueue: &taskqueuepb.TaskQueue{Name: "agents"}}})
	started := w.add(enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED, &historypb.HistoryEvent_WorkflowTaskStartedEventAttributes{WorkflowTaskStartedEventAttributes: &historypb.WorkflowTaskStartedEventAttributes{
		ScheduledEventId: sched}})
	w.lastTask = w.add(enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, &historypb.HistoryEvent_WorkflowTaskCompletedEventAttributes{WorkflowTaskCompletedEventAttributes: &historypb.WorkflowTaskCompletedEventAttributes{
		ScheduledEventId: sched, StartedEventId: started}})
}

// scheduleRecorder tells onSchedule of each activity a workflow schedules, as it schedules it.
type scheduleRecorder struct {
	interceptor.WorkerInterceptorBase
	onSchedule func(activityType string, args []any)
}

func (r *scheduleRecorder) InterceptWorkflow(_ workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &recordingInbound{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}, onSchedule: r.onSchedule}
}

type recordingInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	onSchedule func(activityType string, args []any)
}

func (i *recordingInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	return i.Next.Init(&recordingOutbound{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: outbound}, onSchedule: i.onSchedule})
}

type recordingOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	onSchedule func(activityType string, args []any)
}

func (o *recordingOutbound) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	o.onSchedule(activityType, args)
	return o.Next.ExecuteActivity(ctx, activityType, args...)
}
