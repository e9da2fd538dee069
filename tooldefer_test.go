package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

const deferKey = "sk-live-do-not-store-4c7f1e"

// threeCalls is a model turn asking for the weather twice and a conversion.
func threeCalls(total int) gatewaytest.Reply {
	return gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
		{ID: "w1", Name: "weather", Arguments: `{"city":"Paris"}`},
		{ID: "c1", Name: "convert", Arguments: `{"celsius":20,"to":"fahrenheit"}`},
		{ID: "w2", Name: "weather", Arguments: `{"city":"Rome"}`},
	}, Usage: &gatewaytest.Usage{PromptTokens: total - 10, CompletionTokens: 10, TotalTokens: total}}
}

// answerUsing is a final answer from the tool results, spending total tokens.
func answerUsing(total int) gatewaytest.Reply {
	return gatewaytest.Reply{Respond: func(conv []gatewaytest.Turn) gatewaytest.Reply {
		r := answerFromTools(conv)
		r.Usage = &gatewaytest.Usage{PromptTokens: total - 5, CompletionTokens: 5, TotalTokens: total}
		return r
	}}
}

func deferConvert(call infergate.ToolCall) bool { return call.Function.Name == "convert" }

// pauseAtConvert runs a loop on gw whose first turn is threeCalls and whose conversion is
// deferred; it returns the pause and how many weather calls ran.
func pauseAtConvert(t *testing.T, gw *gatewaytest.Server, loop infergate.ToolLoop) (*infergate.ToolsDeferredError, *infergate.ToolRunResult, int64) {
	t.Helper()
	var ran atomic.Int64
	weather := mustTool(t, "weather", func(_ context.Context, in cityArgs) (string, error) {
		ran.Add(1)
		return "sunny in " + in.City, nil
	})
	loop.Tools = []*infergate.FuncTool{weather, convertTool(t)}
	loop.Defer = deferConvert
	req := hello()
	req.Temperature = infergate.Ptr(0.25)
	req.Extra = map[string]any{"seed": 7}
	res, err := gw.Client().Chat.RunTools(context.Background(), req, loop).Wait()
	var paused *infergate.ToolsDeferredError
	if !errors.Is(err, infergate.ErrToolsDeferred) || !errors.As(err, &paused) {
		t.Fatalf("the loop ended with %v, want a *ToolsDeferredError", err)
	}
	return paused, res, ran.Load()
}

func TestDeferRunsTheTurnsOtherCalls(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithAcceptedAPIKey(deferKey))
	gw.Enqueue(threeCalls(40), answerUsing(30))
	paused, res, ran := pauseAtConvert(t, gw, infergate.ToolLoop{})
	if ran != 2 {
		t.Errorf("%d weather calls ran, want 2", ran)
	}
	if len(paused.Pending) != 1 || paused.Pending[0].ID != "c1" || paused.Pending[0].Function.Arguments != `{"celsius":20,"to":"fahrenheit"}` {
		t.Errorf("pending %+v", paused.Pending)
	}
	if !strings.Contains(paused.Error(), "turn 1 with 1 deferred") {
		t.Errorf("error text %q", paused.Error())
	}
	var roles []string
	for _, m := range res.Messages {
		roles = append(roles, string(m.Role)+m.ToolCallID)
	}
	if got := strings.Join(roles, ","); got != "user,assistant,toolw1,toolw2" || res.Steps != 1 || res.Usage.TotalTokens != 40 {
		t.Errorf("transcript %s, steps %d, usage %+v", got, res.Steps, res.Usage)
	}
	if n := len(gw.Requests()); n != 1 {
		t.Errorf("the fake saw %d requests, want 1", n)
	}
}

func TestToolLoopStateJSON(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithAcceptedAPIKey(deferKey))
	gw.Enqueue(threeCalls(40))
	paused, _, _ := pauseAtConvert(t, gw, infergate.ToolLoop{})
	raw, err := json.Marshal(paused.State)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), deferKey) || strings.Contains(string(raw), "sk-live") {
		t.Errorf("the state holds the API key: %s", raw)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || string(top["version"]) != "1" {
		t.Fatalf("state %s: version %s, %v", raw, top["version"], err)
	}
	var back infergate.ToolLoopState
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	again, err := json.Marshal(back)
	if err != nil || string(again) != string(raw) {
		t.Errorf("round trip changed the state:\n%s\n%s (%v)", raw, again, err)
	}

	for name, tc := range map[string]struct {
		version json.RawMessage
		want    string
	}{
		"newer":   {json.RawMessage(`2`), "newer than this SDK reads"},
		"zero":    {json.RawMessage(`0`), "versions start at 1"},
		"missing": {nil, `no "version"`},
	} {
		edited := map[string]json.RawMessage{}
		for k, v := range top {
			edited[k] = v
		}
		delete(edited, "version")
		if tc.version != nil {
			edited["version"] = tc.version
		}
		b, _ := json.Marshal(edited)
		var s infergate.ToolLoopState
		err := json.Unmarshal(b, &s)
		var ve *infergate.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s version: %v, want a *ValidationError saying %q", name, err, tc.want)
		}
	}
	var zero infergate.ToolLoopState
	if b, err := json.Marshal(zero); err != nil || string(b) != "null" {
		t.Errorf("the zero state is %s, %v", b, err)
	}
}

func TestResumeToolsInAFreshClient(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithAcceptedAPIKey(deferKey))
	gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
		{ID: "w1", Name: "weather", Arguments: `{"city":"Paris"}`},
		{ID: "c1", Name: "convert", Arguments: `{"celsius":20,"to":"fahrenheit"}`},
		{ID: "c2", Name: "convert", Arguments: `{"celsius":30,"to":"kelvin"}`},
		{ID: "c3", Name: "convert", Arguments: `{"celsius":40,"to":"kelvin"}`},
	}, Usage: &gatewaytest.Usage{PromptTokens: 30, CompletionTokens: 10, TotalTokens: 40}}, answerUsing(30))
	paused, _, _ := pauseAtConvert(t, gw, infergate.ToolLoop{})
	raw, err := json.Marshal(paused.State)
	if err != nil {
		t.Fatal(err)
	}

	// Another process: a client of its own, the state read from its JSON.
	var state infergate.ToolLoopState
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatal(err)
	}
	loop := infergate.ToolLoop{Tools: []*infergate.FuncTool{weatherTool(t), convertTool(t)}}
	run := gw.Client().Chat.ResumeTools(context.Background(), state, []infergate.ToolOutcome{
		{CallID: "c3", Refused: true},
		{CallID: "c1", Output: "68"},
		{CallID: "c2", Output: "not in kelvin today", Refused: true},
	}, loop)
	var events []string
	for ev, err := range run.Events() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == infergate.ToolEventResult {
			var te *infergate.ToolError
			refused := errors.As(ev.Result.Err, &te) && te.Stage == infergate.ToolStageRefused
			events = append(events, ev.Result.Call.ID+"="+ev.Result.Output+map[bool]string{true: " (refused)"}[refused])
			if ev.Step != 1 {
				t.Errorf("outcome reported at step %d", ev.Step)
			}
		}
	}
	if got := strings.Join(events, "; "); got != "c1=68; c2=not in kelvin today (refused); c3=The call of convert was refused. (refused)" {
		t.Errorf("events %s", got)
	}
	res, err := run.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if want := "seen w1=sunny in Paris; c1=68; c2=not in kelvin today; c3=The call of convert was refused."; res.Answer.Text() != want {
		t.Errorf("answer %q, want %q", res.Answer.Text(), want)
	}
	if res.Steps != 2 || res.Usage.TotalTokens != 70 || len(res.Messages) != 7 {
		t.Errorf("steps %d, usage %+v, %d messages", res.Steps, res.Usage, len(res.Messages))
	}
	sent, _ := gw.LastRequest()
	turns := sent.Turns()
	if len(turns) != 6 || turns[0].Content != "hi" || len(turns[1].ToolCalls) != 4 || turns[5].ToolCallID != "c3" {
		t.Errorf("the resumed request sent %+v", turns)
	}
	if sent.JSON["temperature"] != 0.25 || sent.JSON["seed"] != float64(7) || sent.JSON["model"] != "llama-3.3-70b" {
		t.Errorf("the request's settings were not kept: %v", sent.JSON)
	}
	if len(sent.JSON["tools"].([]any)) != 2 {
		t.Errorf("tools sent: %v", sent.JSON["tools"])
	}
}

// A refusal given as an outcome reaches the model as Approve's refusal of the same call does.
func TestResumeRefusalReadsAsApprove(t *testing.T) {
	t.Parallel()
	inline := gatewaytest.New(t)
	inline.Enqueue(threeCalls(40), answerUsing(30))
	_, err := inline.Client().Chat.RunTools(context.Background(), hello(), infergate.ToolLoop{
		Tools: []*infergate.FuncTool{weatherTool(t), convertTool(t)},
		Approve: func(_ context.Context, call infergate.ToolCall) error {
			if call.ID == "c1" {
				return errors.New("the user said no")
			}
			return nil
		},
	}).Wait()
	if err != nil {
		t.Fatal(err)
	}
	gw := gatewaytest.New(t)
	gw.Enqueue(threeCalls(40), answerUsing(30))
	paused, _, _ := pauseAtConvert(t, gw, infergate.ToolLoop{})
	_, err = gw.Client().Chat.ResumeTools(context.Background(), paused.State,
		[]infergate.ToolOutcome{{CallID: "c1", Output: "the user said no", Refused: true}},
		infergate.ToolLoop{Tools: []*infergate.FuncTool{weatherTool(t), convertTool(t)}}).Wait()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := inline.LastRequest()
	got, _ := gw.LastRequest()
	if !cmp.Equal(want.Turns()[3], got.Turns()[3]) || got.Turns()[3].Content != "the user said no" {
		t.Errorf("refusal sent as %+v, Approve's as %+v", got.Turns()[3], want.Turns()[3])
	}
}

func TestResumeCountsBoundsAcrossThePause(t *testing.T) {
	t.Parallel()
	resume := func(t *testing.T, gw *gatewaytest.Server, paused *infergate.ToolsDeferredError, loop infergate.ToolLoop) (*infergate.ToolRunResult, error) {
		loop.Tools = []*infergate.FuncTool{weatherTool(t), convertTool(t)}
		return gw.Client().Chat.ResumeTools(context.Background(), paused.State,
			[]infergate.ToolOutcome{{CallID: "c1", Output: "68"}}, loop).Wait()
	}
	t.Run("steps", func(t *testing.T) {
		t.Parallel()
		gw := gatewaytest.New(t)
		gw.Enqueue(threeCalls(10), gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{ID: "w3", Name: "weather", Arguments: `{"city":"Oslo"}`}}}, answerUsing(10))
		paused, _, _ := pauseAtConvert(t, gw, infergate.ToolLoop{MaxSteps: 2})
		res, err := resume(t, gw, paused, infergate.ToolLoop{MaxSteps: 2})
		var limit *infergate.ToolLimitError
		if !errors.As(err, &limit) || limit.Limit != infergate.ToolLimitSteps || limit.Step != 2 || res.Steps != 2 {
			t.Fatalf("resumed loop ended with %v, steps %d; want the step limit at 2", err, res.Steps)
		}
		if n := len(gw.Requests()); n != 2 {
			t.Errorf("%d requests, want 2", n)
		}
	})
	t.Run("tokens", func(t *testing.T) {
		t.Parallel()
		gw := gatewaytest.New(t)
		gw.Enqueue(threeCalls(60), answerUsing(10))
		paused, _, _ := pauseAtConvert(t, gw, infergate.ToolLoop{MaxTokens: 50})
		res, err := resume(t, gw, paused, infergate.ToolLoop{MaxTokens: 50})
		var limit *infergate.ToolLimitError
		if !errors.As(err, &limit) || limit.Limit != infergate.ToolLimitTokens || limit.Step != 1 || res.Usage.TotalTokens != 60 {
			t.Fatalf("resumed loop ended with %v, usage %+v; want the token limit after turn 1", err, res.Usage)
		}
		if len(limit.Messages) != 5 || limit.Messages[3].ToolCallID != "c1" || limit.Messages[3].Content != "68" {
			t.Errorf("transcript %+v", limit.Messages)
		}
		if n := len(gw.Requests()); n != 1 {
			t.Errorf("%d requests, want 1: the budget was spent before the pause", n)
		}
	})
}

func TestResumeRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	gw.Enqueue(threeCalls(40))
	// c1 is deferred; w1 and w2 ran.
	paused, _, _ := pauseAtConvert(t, gw, infergate.ToolLoop{})
	both := []*infergate.FuncTool{weatherTool(t), convertTool(t)}
	for name, tc := range map[string]struct {
		state    infergate.ToolLoopState
		outcomes []infergate.ToolOutcome
		tools    []*infergate.FuncTool
		want     string
	}{
		"unknown call":     {paused.State, []infergate.ToolOutcome{{CallID: "c1"}, {CallID: "x9"}}, both, `no deferred call has id "x9"`},
		"call that ran":    {paused.State, []infergate.ToolOutcome{{CallID: "c1"}, {CallID: "w2"}}, both, `call "w2" already ran`},
		"no outcome":       {paused.State, nil, both, `deferred call "c1" (convert) has no outcome`},
		"answered twice":   {paused.State, []infergate.ToolOutcome{{CallID: "c1"}, {CallID: "c1", Refused: true}}, both, `call "c1" is answered twice`},
		"tool not in loop": {paused.State, []infergate.ToolOutcome{{CallID: "c1"}}, both[1:], `lack the state's tool "weather"`},
		"zero state":       {infergate.ToolLoopState{}, []infergate.ToolOutcome{{CallID: "c1"}}, both, "state: is empty"},
	} {
		_, err := gw.Client().Chat.ResumeTools(context.Background(), tc.state, tc.outcomes, infergate.ToolLoop{Tools: tc.tools}).Wait()
		var ve *infergate.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a *ValidationError saying %q", name, err, tc.want)
		}
	}
	if n := len(gw.Requests()); n != 1 {
		t.Errorf("the fake saw %d requests, want only the first turn's", n)
	}
}

func TestResumedRunPausesAgain(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	gw.Enqueue(threeCalls(10), threeCalls(20), answerUsing(5))
	paused, _, _ := pauseAtConvert(t, gw, infergate.ToolLoop{})
	loop := infergate.ToolLoop{Tools: []*infergate.FuncTool{weatherTool(t), convertTool(t)}, Defer: deferConvert}
	res, err := gw.Client().Chat.ResumeTools(context.Background(), paused.State, []infergate.ToolOutcome{{CallID: "c1", Output: "68"}}, loop).Wait()
	var again *infergate.ToolsDeferredError
	if !errors.As(err, &again) || res.Steps != 2 || res.Usage.TotalTokens != 30 {
		t.Fatalf("%v, steps %d, usage %+v; want a second pause at turn 2", err, res.Steps, res.Usage)
	}
	res, err = gw.Client().Chat.ResumeTools(context.Background(), again.State, []infergate.ToolOutcome{{CallID: "c1", Output: "69"}}, loop).Wait()
	if err != nil || res.Steps != 3 || res.Usage.TotalTokens != 35 {
		t.Fatalf("%v, steps %d, usage %+v", err, res.Steps, res.Usage)
	}
	if diff := cmp.Diff([]string{"68", "69"}, []string{res.Messages[3].Content, res.Messages[7].Content}); diff != "" {
		t.Errorf("outcomes in the transcript (-want +got):\n%s", diff)
	}
}
