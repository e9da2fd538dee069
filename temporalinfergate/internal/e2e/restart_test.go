//go:build e2e

package e2e_test

import (
	"context"
	"strings"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/temporalinfergate"
	"github.com/infergate/infergate-go/temporalinfergate/internal/devserver"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// runTimeout bounds a whole workflow run, restarts included: each restart waits for a timeout of
// the server's (a tool call's StartToCloseTimeout, a sticky task queue's) before going on.
const runTimeout = 3 * time.Minute

// setup returns the package's server, a client of it, a fake gateway and the parameters of
// workers for a task queue of the test's own.
func setup(t *testing.T, gw *gatewaytest.Server, tools *toolService) (client.Client, workerParams) {
	t.Helper()
	srv := devserver.Shared(t)
	c, err := srv.Dial()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, workerParams{HostPort: srv.HostPort, TaskQueue: "e2e-" + t.Name(), Gateway: gw.URL(), Tools: tools.URL}
}

// chatRequests returns the chat requests the gateway received.
func chatRequests(gw *gatewaytest.Server) int {
	n := 0
	for _, r := range gw.Requests() {
		if strings.HasSuffix(r.Path, "/chat/completions") {
			n++
		}
	}
	return n
}

// A worker killed (SIGKILL) in the middle of a tool loop, while a tool call is in flight, and
// another started in its place: the loop finishes on the new worker. Each tool call that had
// completed before the kill is not run again; the call in flight at the kill runs again, since
// Temporal runs an activity at least once, and completes once; the loop's bound on model turns
// counts the turns taken before the restart.
func TestLoopSurvivesAKilledWorker(t *testing.T) {
	t.Parallel()
	turns := [][]gatewaytest.ToolCall{
		{{ID: "call_a", Name: "note", Arguments: `{"id":"A"}`}},
		{{ID: "call_b", Name: "note", Arguments: `{"id":"B"}`}, {ID: "call_c", Name: "note", Arguments: `{"id":"C"}`}},
		{{ID: "call_d", Name: "note", Arguments: `{"id":"D"}`}},
	}
	gw := gatewaytest.New(t)
	for _, calls := range turns {
		gw.Enqueue(gatewaytest.Reply{ToolCalls: calls})
	}
	// A fourth turn, which MaxSteps (3) must refuse: were the turns counted from the restart on,
	// the loop would take it and end with this answer.
	gw.Enqueue(gatewaytest.Reply{Content: "a fourth turn"})
	tools := newToolService(t, "C")
	c, params := setup(t, gw, tools)

	first := startWorker(t, params)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: params.TaskQueue}, loopWorkflowName, "Note A, then B and C, then D.")
	if err != nil {
		t.Fatal(err)
	}
	// B has run and its activity is complete in the history; C has started and is held.
	tools.await(t, runTimeout, "B done and C started", func(starts, dones map[string]int) bool {
		return dones["B"] == 1 && starts["C"] == 1
	})
	awaitCompletedTools(t, ctx, c, run, 2)
	first.kill()
	t.Logf("worker 1 killed (SIGKILL) with A and B completed and C in flight; workflow %s", run.GetID())
	tools.release("C")
	if starts, dones := tools.runs(); dones["C"] != 0 || starts["D"] != 0 {
		t.Fatalf("C completed or D started before the kill: starts %v, dones %v", starts, dones)
	}

	startWorker(t, params)
	restarted := time.Now()
	var got loopReport
	if err := run.Get(ctx, &got); err != nil {
		t.Fatalf("the workflow: %v", err)
	}

	starts, dones := tools.runs()
	t.Logf("worker 2 finished the loop %v after its start: %+v; note runs started %v, completed %v",
		time.Since(restarted).Round(time.Millisecond), got, starts, dones)
	for _, id := range []string{"A", "B", "D"} {
		if starts[id] != 1 || dones[id] != 1 {
			t.Errorf("note %s started %d times and completed %d times; want once each", id, starts[id], dones[id])
		}
	}
	if starts["C"] != 2 || dones["C"] != 1 {
		t.Errorf("note C, in flight at the kill, started %d times and completed %d times; want 2 and 1", starts["C"], dones["C"])
	}
	if got.Limit != infergate.ToolLimitSteps || got.Steps != 3 {
		t.Errorf("the loop ended with limit %q at turn %d; want %q at 3", got.Limit, got.Steps, infergate.ToolLimitSteps)
	}
	if n := chatRequests(gw); n != 3 || gw.Pending() != 1 {
		t.Errorf("the gateway got %d chat requests, with %d replies left; want 3, the fourth reply left", n, gw.Pending())
	}
	if got.Usage.TotalTokens == 0 {
		t.Errorf("the loop's usage is %+v; want the three turns'", got.Usage)
	}
}

// A deferred call waits in the workflow, across a restart of its worker, for the outcome a
// signal brings through the server; the loop then goes on with it.
func TestDeferredCallWaitsForItsSignal(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	gw.Enqueue(
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
			{ID: "call_note", Name: "note", Arguments: `{"id":"E"}`},
			{ID: "call_refund", Name: "refund", Arguments: `{"id":"A-17"}`},
		}},
		gatewaytest.Reply{Respond: func(conversation []gatewaytest.Turn) gatewaytest.Reply {
			var results []string
			for _, turn := range conversation {
				if turn.Role == "tool" {
					results = append(results, turn.ToolCallID+": "+turn.Content)
				}
			}
			return gatewaytest.Reply{Content: strings.Join(results, "; ")}
		}},
	)
	tools := newToolService(t)
	c, params := setup(t, gw, tools)

	first := startWorker(t, params)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: params.TaskQueue}, deferWorkflowName, "Note E and refund A-17.")
	if err != nil {
		t.Fatal(err)
	}
	awaitCompletedTools(t, ctx, c, run, 1)
	awaitWorkflowTask(t, ctx, c, run)
	answer, err := c.QueryWorkflow(ctx, run.GetID(), run.GetRunID(), temporalinfergate.QueryPendingToolCalls)
	if err != nil {
		t.Fatal(err)
	}
	var pending []infergate.ToolCall
	if err := answer.Get(&pending); err != nil {
		t.Fatal(err)
	}
	if len(pending) != 1 || pending[0].ID != "call_refund" {
		t.Fatalf("the workflow waits for %+v; want the refund's call", pending)
	}

	// The decision comes while no worker runs: the server keeps the signal in the history.
	first.kill()
	t.Logf("worker 1 killed (SIGKILL) while the workflow waits for the outcome of %s", pending[0].ID)
	if err := temporalinfergate.SendOutcome(ctx, c, run.GetID(), "", infergate.ToolOutcome{CallID: "call_refund", Output: "refunded 40 euros"}); err != nil {
		t.Fatal(err)
	}
	startWorker(t, params)
	var got loopReport
	if err := run.Get(ctx, &got); err != nil {
		t.Fatalf("the workflow: %v", err)
	}
	t.Logf("worker 2 finished the loop: %+v", got)
	if want := "call_note: noted E; call_refund: refunded 40 euros"; got.Answer != want || got.Steps != 2 {
		t.Errorf("answer %q after %d turns; want %q after 2", got.Answer, got.Steps, want)
	}
	if starts, dones := tools.runs(); starts["E"] != 1 || dones["E"] != 1 {
		t.Errorf("note E started %d times and completed %d times; want once each", starts["E"], dones["E"])
	}
}

// awaitCompletedTools returns once the workflow's history holds n completed tool calls
// (temporalinfergate.ToolActivity), following the history as the server writes it.
func awaitCompletedTools(t *testing.T, ctx context.Context, c client.Client, run client.WorkflowRun, n int) {
	t.Helper()
	scheduled := map[int64]string{} // event id → activity type
	done := 0
	events := c.GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), true, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for done < n && events.HasNext() {
		ev, err := events.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			scheduled[ev.GetEventId()] = ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			if scheduled[ev.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()] == temporalinfergate.ToolActivity {
				done++
			}
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:
			t.Fatalf("the workflow ended (%v) after %d completed tool calls; want %d first", ev.GetEventType(), done, n)
		}
	}
	if done < n {
		t.Fatalf("the history ended after %d completed tool calls; want %d", done, n)
	}
}

// awaitWorkflowTask returns once the workflow has taken in everything its history holds: its last
// event is a completed workflow task, after which it waits (for a signal, here).
func awaitWorkflowTask(t *testing.T, ctx context.Context, c client.Client, run client.WorkflowRun) {
	t.Helper()
	events := c.GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), true, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var seen []enumspb.EventType
	completed := false // a tool call has completed, and no workflow task since
	for events.HasNext() {
		ev, err := events.Next()
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, ev.GetEventType())
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			completed = true
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			if completed {
				return
			}
		}
	}
	t.Fatalf("the history ended without a workflow task after the tool call: %v", seen)
}
