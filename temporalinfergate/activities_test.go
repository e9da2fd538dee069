package temporalinfergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/temporalinfergate"
	"github.com/infergate/infergate-go/temporalinfergate/temporalinfergatetest"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// A request's Extra fields, which ChatRequest's JSON leaves out, travel through the workflow's
// history to the worker and reach the gateway; the history never holds the key, which only the
// worker's client has.
func TestActivitiesCarryExtraFieldsAndNoKey(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	gw := temporalinfergatetest.Register(t, env, nil)
	gw.Enqueue(gatewaytest.Reply{Content: "hello"})
	var history []string // every activity input and result, as the history records them
	env.SetOnActivityStartedListener(func(_ *activity.Info, _ context.Context, args converter.EncodedValues) {
		var in json.RawMessage
		if err := args.Get(&in); err != nil {
			t.Error(err)
		}
		history = append(history, string(in))
	})
	env.ExecuteWorkflow(func(ctx workflow.Context) (string, error) {
		req := question("hi")
		req.Extra = map[string]any{"seed": 7, "user": "ann"}
		return chatWorkflow(false)(ctx, req)
	})
	var answer string
	if err := env.GetWorkflowResult(&answer); err != nil || answer != "hello" {
		t.Fatalf("answer %q, err %v", answer, err)
	}
	sent := gw.Requests()[0].JSON
	if sent["seed"] != 7.0 || sent["user"] != "ann" {
		t.Errorf("the gateway got %v", sent)
	}
	if len(history) != 1 || strings.Contains(history[0], gatewaytest.DefaultAPIKey) || !strings.Contains(history[0], `"seed":7`) {
		t.Errorf("history %q", history)
	}
}

// Embeddings are an activity; their vectors come back through the history whole.
func TestEmbeddingsActivity(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	temporalinfergatetest.Register(t, env, nil)
	env.ExecuteWorkflow(func(ctx workflow.Context) ([]float32, error) {
		ctx = workflow.WithActivityOptions(ctx, activityOptions)
		out, err := temporalinfergate.Embeddings(ctx, infergate.EmbeddingRequest{Input: []string{"the cat sat"}, Dimensions: infergate.Ptr(8)})
		if err != nil {
			return nil, err
		}
		return out.Data[0].Embedding, nil
	})
	var got []float32
	if err := env.GetWorkflowResult(&got); err != nil {
		t.Fatal(err)
	}
	want := gatewaytest.Embed("the cat sat", 8)
	if len(got) != len(want) {
		t.Fatalf("vector %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("vector %v, want %v", got, want)
		}
	}
}

// A tool call is an activity: its failure is its result, which the model reads; a tool the worker
// lacks fails it, not retried.
func TestCallToolActivity(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	var weather counter
	temporalinfergatetest.Register(t, env, []*infergate.FuncTool{weather.tool(t, "weather")})
	type outcome struct {
		Results []temporalinfergate.ToolCallResult
		Missing string // the error of a call of a tool the worker lacks
	}
	env.ExecuteWorkflow(func(ctx workflow.Context) (outcome, error) {
		ctx = workflow.WithActivityOptions(ctx, activityOptions)
		var out outcome
		for _, call := range []infergate.ToolCall{
			{ID: "a", Function: infergate.FunctionCall{Name: "weather", Arguments: `{"city":"Rome"}`}},
			{ID: "b", Function: infergate.FunctionCall{Name: "weather", Arguments: `{"town":"Rome"}`}},
		} {
			res, err := temporalinfergate.CallTool(ctx, call)
			if err != nil {
				return out, err
			}
			out.Results = append(out.Results, res)
		}
		_, err := temporalinfergate.CallTool(ctx, infergate.ToolCall{ID: "c", Function: infergate.FunctionCall{Name: "refund"}})
		var app *temporal.ApplicationError
		if errors.As(err, &app) && app.Type() == temporalinfergate.ErrorTypeRefused && app.NonRetryable() {
			out.Missing = app.Error()
		}
		return out, nil
	})
	var got outcome
	if err := env.GetWorkflowResult(&got); err != nil {
		t.Fatal(err)
	}
	if len(got.Results) != 2 || got.Results[0] != (temporalinfergate.ToolCallResult{CallID: "a", Output: "weather of Rome: sunny"}) {
		t.Fatalf("results %+v", got.Results)
	}
	if bad := got.Results[1]; bad.CallID != "b" || bad.Error == "" || !strings.Contains(bad.Output, "city") || bad.Output == bad.Error {
		t.Errorf("a call with wrong arguments: %+v", bad)
	}
	if weather.runs.Load() != 1 || !strings.Contains(got.Missing, `no tool "refund"`) {
		t.Errorf("%d runs; a missing tool: %q", weather.runs.Load(), got.Missing)
	}
}
