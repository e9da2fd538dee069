package temporalinfergate_test

import (
	"context"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/temporalinfergate"
	"github.com/infergate/infergate-go/temporalinfergate/temporalinfergatetest"
)

// A loop whose model calls two tools in one turn runs each call as an activity, once, and sends
// the results back; the answer and the transcript come back through the workflow's result.
func TestRunToolsRunsEachCallAsAnActivity(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	var weather, forecast counter
	gw := temporalinfergatetest.Register(t, env, []*infergate.FuncTool{weather.tool(t, "weather"), forecast.tool(t, "forecast")})
	gw.Enqueue(
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
			{ID: "a", Name: "weather", Arguments: `{"city":"Rome"}`},
			{ID: "b", Name: "forecast", Arguments: `{"city":"Oslo"}`},
		}},
		gatewaytest.Reply{Respond: func(conv []gatewaytest.Turn) gatewaytest.Reply {
			var got []string
			for _, turn := range conv {
				if turn.Role == "tool" {
					got = append(got, turn.Content)
				}
			}
			return gatewaytest.Reply{Content: strings.Join(got, "; ")}
		}},
	)
	activities := map[string]int{}
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		activities[info.ActivityType.Name]++
	})
	env.ExecuteWorkflow(loopWorkflow(question("Rome and Oslo?"), temporalinfergate.ToolLoop{Tools: []string{"weather", "forecast"}}))
	var res infergate.ToolRunResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if got, want := res.Answer.Text(), "weather of Rome: sunny; forecast of Oslo: sunny"; got != want {
		t.Errorf("answer %q, want %q", got, want)
	}
	if res.Steps != 2 || len(res.Messages) != 5 || res.Usage.TotalTokens == 0 {
		t.Errorf("steps %d, %d messages, usage %+v", res.Steps, len(res.Messages), res.Usage)
	}
	if weather.runs.Load() != 1 || forecast.runs.Load() != 1 {
		t.Errorf("runs: weather %d, forecast %d", weather.runs.Load(), forecast.runs.Load())
	}
	if activities[temporalinfergate.ToolTurnActivity] != 2 || activities[temporalinfergate.ToolActivity] != 2 {
		t.Errorf("activities %v", activities)
	}
}

// A call of a tool the loop does not have is answered as infergate's loop answers it, in the turn's
// own activity, which then takes the next turn: the model reads that there is no such tool.
func TestRunToolsAnswersAnUnknownToolInTheTurn(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	var weather counter
	gw := temporalinfergatetest.Register(t, env, []*infergate.FuncTool{weather.tool(t, "weather")})
	gw.Enqueue(
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{ID: "a", Name: "forecast", Arguments: `{}`}}},
		gatewaytest.Reply{Respond: toolResults},
	)
	activities := map[string]int{}
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		activities[info.ActivityType.Name]++
	})
	env.ExecuteWorkflow(loopWorkflow(question("forecast?"), temporalinfergate.ToolLoop{Tools: []string{"weather"}}))
	var res infergate.ToolRunResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Answer.Text(), `no tool named "forecast"`) || res.Steps != 2 {
		t.Errorf("answer %q after %d steps", res.Answer.Text(), res.Steps)
	}
	if activities[temporalinfergate.ToolTurnActivity] != 1 || activities[temporalinfergate.ToolActivity] != 0 || weather.runs.Load() != 0 {
		t.Errorf("activities %v", activities)
	}
}
