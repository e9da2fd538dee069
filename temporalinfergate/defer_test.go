package temporalinfergate_test

import (
	"strings"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/temporalinfergate"
	"github.com/infergate/infergate-go/temporalinfergate/temporalinfergatetest"
)

// toolResults is the model's second turn: it repeats the tool results it read, in order.
func toolResults(conv []gatewaytest.Turn) gatewaytest.Reply {
	var got []string
	for _, turn := range conv {
		if turn.Role == "tool" {
			got = append(got, turn.Content)
		}
	}
	return gatewaytest.Reply{Content: strings.Join(got, " | ")}
}

// Deferred calls (by name, and by the predicate, here by its panic) are not run: the loop runs the turn's other call,
// lists the deferred ones in its query, and waits, a day here, for their outcomes by signal; an
// outcome for a call that does not wait is dropped. The model then reads each outcome, a refusal's
// reason included, and the loop goes on.
func TestRunToolsWaitsForDeferredOutcomes(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	var lookup, refund, cancel counter
	gw := temporalinfergatetest.Register(t, env, []*infergate.FuncTool{lookup.tool(t, "lookup"), refund.tool(t, "refund"), cancel.tool(t, "cancel")})
	gw.Enqueue(
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
			{ID: "c1", Name: "lookup", Arguments: `{"city":"A-17"}`},
			{ID: "c2", Name: "refund", Arguments: `{"city":"A-17"}`},
			{ID: "c3", Name: "cancel", Arguments: `{"city":"A-17"}`},
		}},
		gatewaytest.Reply{Respond: toolResults},
	)
	loop := temporalinfergate.ToolLoop{Tools: []string{"lookup", "refund", "cancel"}, DeferTools: []string{"refund"},
		Defer: func(call infergate.ToolCall) bool {
			if call.Function.Name == "cancel" {
				panic("a predicate that fails defers the call")
			}
			return false
		}}
	var waiting []infergate.ToolCall
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(temporalinfergate.QueryPendingToolCalls)
		if err != nil {
			t.Error(err)
			return
		}
		if err := v.Get(&waiting); err != nil {
			t.Error(err)
		}
		env.SignalWorkflow(temporalinfergate.SignalToolOutcome, infergate.ToolOutcome{CallID: "c1", Output: "ran already"})
		env.SignalWorkflow(temporalinfergate.SignalToolOutcome, infergate.ToolOutcome{CallID: "c3", Output: "not today", Refused: true})
		env.SignalWorkflow(temporalinfergate.SignalToolOutcome, infergate.ToolOutcome{CallID: "c2", Output: "refunded by Ann"})
	}, 24*time.Hour)
	start := env.Now()
	env.ExecuteWorkflow(loopWorkflow(question("Refund and cancel A-17."), loop))
	var res infergate.ToolRunResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if len(waiting) != 2 || waiting[0].ID != "c2" || waiting[1].ID != "c3" {
		t.Errorf("waiting calls %+v", waiting)
	}
	if got, want := res.Answer.Text(), "lookup of A-17: sunny | refunded by Ann | not today"; got != want {
		t.Errorf("the model read %q, want %q", got, want)
	}
	if lookup.runs.Load() != 1 || refund.runs.Load() != 0 || cancel.runs.Load() != 0 {
		t.Errorf("runs: lookup %d, refund %d, cancel %d", lookup.runs.Load(), refund.runs.Load(), cancel.runs.Load())
	}
	if res.Steps != 2 || env.Now().Sub(start) < 24*time.Hour {
		t.Errorf("steps %d, ended after %s", res.Steps, env.Now().Sub(start))
	}
}

// A deferred tool that is not among the loop's tools is refused before anything is scheduled.
func TestRunToolsRefusesAnUnknownDeferredTool(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	gw := temporalinfergatetest.Register(t, env, nil)
	env.ExecuteWorkflow(loopWorkflow(question("hi"), temporalinfergate.ToolLoop{DeferTools: []string{"refund"}}))
	err := env.GetWorkflowError()
	if err == nil || !strings.Contains(err.Error(), `"refund" is not among ToolLoop.Tools`) || len(gw.Requests()) != 0 {
		t.Fatalf("err = %v, %d requests", err, len(gw.Requests()))
	}
}

// An outcome sent twice (a person who clicked twice) answers its call once: the copy left over is
// dropped, and does not answer a call of a later turn that the model gave the same id.
func TestRunToolsDropsAnOutcomeSentTwice(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	var refund counter
	gw := temporalinfergatetest.Register(t, env, []*infergate.FuncTool{refund.tool(t, "refund")})
	refundCall := gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{ID: "c1", Name: "refund", Arguments: `{"city":"A-17"}`}}}
	gw.Enqueue(refundCall, refundCall, gatewaytest.Reply{Respond: toolResults})
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(temporalinfergate.SignalToolOutcome, infergate.ToolOutcome{CallID: "c1", Output: "refunded by Ann"})
		env.SignalWorkflow(temporalinfergate.SignalToolOutcome, infergate.ToolOutcome{CallID: "c1", Output: "refunded by Ann"})
	}, time.Hour)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(temporalinfergate.SignalToolOutcome, infergate.ToolOutcome{CallID: "c1", Output: "second refund refused by Bob", Refused: true})
	}, 48*time.Hour)
	start := env.Now()
	loop := temporalinfergate.ToolLoop{Tools: []string{"refund"}, DeferTools: []string{"refund"}}
	env.ExecuteWorkflow(loopWorkflow(question("Refund A-17."), loop))
	var res infergate.ToolRunResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if got, want := res.Answer.Text(), "refunded by Ann | second refund refused by Bob"; got != want {
		t.Errorf("the model read %q, want %q", got, want)
	}
	if refund.runs.Load() != 0 || res.Steps != 3 || env.Now().Sub(start) < 48*time.Hour {
		t.Errorf("runs %d, steps %d, ended after %s", refund.runs.Load(), res.Steps, env.Now().Sub(start))
	}
}
