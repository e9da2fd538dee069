//go:build e2e

package temporalinfergate_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/temporalinfergate"
	"github.com/infergate/infergate-go/temporalinfergate/internal/devserver"
	"github.com/infergate/infergate-go/temporalinfergate/temporalinfergatetest"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

// envRecordHistories, set to 1, lets TestRecordHistories rewrite the recorded histories.
const envRecordHistories = "INFERGATE_RECORD_HISTORIES"

// recordTimeout bounds one recorded run.
const recordTimeout = 2 * time.Minute

// TestRecordHistories runs each workflow of recordedLoops on a real Temporal server (the temporal
// command's development server) with a worker of its own on a fake gateway, and writes the run's
// history, fetched from the server, to historiesDir, as `temporal workflow show --output json`
// writes it, which the replayer reads.
func TestRecordHistories(t *testing.T) {
	if os.Getenv(envRecordHistories) != "1" {
		t.Skipf("set %s=1 to record the histories in %s", envRecordHistories, historiesDir)
	}
	bin, err := devserver.Binary()
	if err != nil {
		devserver.Unavailable(t, err)
	}
	srv, err := devserver.Start(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	opts := srv.ClientOptions()
	opts.Identity = "history-recorder" // not the machine's name
	c, err := client.Dial(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)

	n := 0
	calls := func(name string, args ...string) gatewaytest.Reply {
		var r gatewaytest.Reply
		for _, a := range args {
			n++
			r.ToolCalls = append(r.ToolCalls, gatewaytest.ToolCall{ID: "call_" + strconv.Itoa(n), Name: name, Arguments: a})
		}
		return r
	}
	record(t, c, "history.parallel", "Weather in Rome, Oslo and Lima?", nil,
		calls("weather", `{"city":"Rome"}`, `{"city":"Oslo"}`, `{"city":"Lima"}`),
		gatewaytest.Reply{Content: "Sunny in all three."})
	record(t, c, "history.deferred", "Refund A-17.",
		&infergate.ToolOutcome{CallID: "call_refund", Output: "refunded by Ann"},
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
			{ID: "call_lookup", Name: "lookup", Arguments: `{"city":"A-17"}`},
			{ID: "call_refund", Name: "refund", Arguments: `{"city":"A-17"}`},
		}},
		gatewaytest.Reply{Content: "A-17 is refunded."})
	record(t, c, "history.bound", "Look up A-17 until you know.", nil,
		calls("lookup", `{"city":"A-17"}`), calls("lookup", `{"city":"B-2"}`), gatewaytest.Reply{Content: "a third turn"})
}

// record runs the workflow name on its own task queue, on replies; outcome, if given, answers the
// call it defers once it waits for it. It writes the run's history to historiesDir.
func record(t *testing.T, c client.Client, name, text string, outcome *infergate.ToolOutcome, replies ...gatewaytest.Reply) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	defer cancel()
	w := worker.New(c, name, worker.Options{Identity: "history-recorder"})
	var lookup, refund, weather counter
	gw := temporalinfergatetest.Register(t, w, []*infergate.FuncTool{lookup.tool(t, "lookup"), refund.tool(t, "refund"), weather.tool(t, "weather")})
	gw.Enqueue(replies...)
	registerRecorded(w, map[string]temporalinfergate.ToolLoop{name: recordedLoops[name]})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: name, TaskQueue: name}, name, text)
	if err != nil {
		t.Fatal(err)
	}
	if outcome != nil {
		awaitPending(t, ctx, c, run, outcome.CallID)
		if err := temporalinfergate.SendOutcome(ctx, c, run.GetID(), run.GetRunID(), *outcome); err != nil {
			t.Fatal(err)
		}
	}
	var answer string
	if err := run.Get(ctx, &answer); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Logf("%s: %q; lookup ran %d times, refund %d, weather %d", name, answer, lookup.runs.Load(), refund.runs.Load(), weather.runs.Load())

	var h historypb.History
	events := c.GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for events.HasNext() {
		e, err := events.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, e)
	}
	raw, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(&h)
	if err != nil {
		t.Fatal(err)
	}
	if err := holdsCredential(raw); err != nil {
		t.Fatalf("%s's history: %v", name, err)
	}
	file := filepath.Join(historiesDir, name+".json")
	if err := os.WriteFile(file, append(raw, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d events, %d bytes", file, len(h.Events), len(raw)+1)
}

// awaitPending returns once the run waits for the call id's outcome.
func awaitPending(t *testing.T, ctx context.Context, c client.Client, run client.WorkflowRun, id string) {
	t.Helper()
	for {
		v, err := c.QueryWorkflow(ctx, run.GetID(), run.GetRunID(), temporalinfergate.QueryPendingToolCalls)
		var pending []infergate.ToolCall
		if err == nil {
			err = v.Get(&pending)
		}
		if err == nil && slices.ContainsFunc(pending, func(c infergate.ToolCall) bool { return c.ID == id }) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the run never waited for %s: %v", id, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
