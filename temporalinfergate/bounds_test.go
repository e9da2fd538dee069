package temporalinfergate_test

import (
	"errors"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/temporalinfergate"
	"github.com/infergate/infergate-go/temporalinfergate/temporalinfergatetest"
	"go.temporal.io/sdk/workflow"
)

// limitReached is what a workflow reports of the *infergate.ToolLimitError RunTools returned.
type limitReached struct {
	Limit    infergate.ToolLimit
	Step     int
	Messages int
	Spent    infergate.Money
}

// The loop's bounds count every turn, each a separate activity that keeps nothing between turns:
// the counts travel in the workflow's history. A bound reached ends RunTools with the
// *infergate.ToolLimitError, after the calls of the turn that reached it and before another turn.
func TestRunToolsBoundsHoldAcrossTurns(t *testing.T) {
	t.Parallel()
	usd := func(s string) infergate.Money {
		d, err := infergate.ParseDecimal(s)
		if err != nil {
			t.Fatal(err)
		}
		return infergate.Money{Amount: d, Currency: infergate.CurrencyUSD}
	}
	for _, tc := range []struct {
		name  string
		loop  temporalinfergate.ToolLoop
		limit infergate.ToolLimit
		spent infergate.Money
	}{
		{"steps", temporalinfergate.ToolLoop{MaxSteps: 2}, infergate.ToolLimitSteps, infergate.Money{}},
		{"tokens", temporalinfergate.ToolLoop{MaxTokens: 1500}, infergate.ToolLimitTokens, infergate.Money{}},
		// llama-3.3-70b at 0.70 and 2.50 a million: 950 micro-dollars a turn.
		{"cost", temporalinfergate.ToolLoop{MaxCost: usd("0.001")}, infergate.ToolLimitCost, usd("0.0019")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t)
			var weather counter
			gw := temporalinfergatetest.Register(t, env, []*infergate.FuncTool{weather.tool(t, "weather")})
			for range 4 {
				gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "weather", Arguments: `{"city":"Rome"}`}},
					Usage: &gatewaytest.Usage{PromptTokens: 1000, CompletionTokens: 100}})
			}
			tc.loop.Tools = []string{"weather"}
			env.ExecuteWorkflow(func(ctx workflow.Context) (limitReached, error) {
				ctx = workflow.WithActivityOptions(ctx, activityOptions)
				_, err := temporalinfergate.RunTools(ctx, question("weather?"), tc.loop)
				var limit *infergate.ToolLimitError
				if !errors.As(err, &limit) {
					return limitReached{}, err
				}
				return limitReached{Limit: limit.Limit, Step: limit.Step, Messages: len(limit.Messages), Spent: limit.Spent}, nil
			})
			var got limitReached
			if err := env.GetWorkflowResult(&got); err != nil {
				t.Fatal(err)
			}
			// The question, two turns and their results.
			if got.Limit != tc.limit || got.Step != 2 || got.Messages != 5 || !got.Spent.Equal(tc.spent) {
				t.Errorf("limit %+v", got)
			}
			if weather.runs.Load() != 2 || gw.Pending() != 2 {
				t.Errorf("%d tool runs, %d replies left", weather.runs.Load(), gw.Pending())
			}
		})
	}
}
