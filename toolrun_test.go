package infergate_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

type cityArgs struct {
	City string `json:"city"`
}

type convertArgs struct {
	Celsius float64 `json:"celsius"`
	To      string  `json:"to" enum:"fahrenheit,kelvin"`
}

func mustTool[In, Out any](t testing.TB, name string, fn func(context.Context, In) (Out, error)) *infergate.FuncTool {
	t.Helper()
	tool, err := infergate.NewTool(name, "test tool "+name, fn)
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

func weatherTool(t testing.TB) *infergate.FuncTool {
	return mustTool(t, "weather", func(_ context.Context, in cityArgs) (map[string]any, error) {
		return map[string]any{"city": in.City, "celsius": 20}, nil
	})
}

func convertTool(t testing.TB) *infergate.FuncTool {
	return mustTool(t, "convert", func(_ context.Context, in convertArgs) (string, error) {
		return fmt.Sprintf("%.0f", in.Celsius*9/5+32), nil
	})
}

// answerFromTools is the fake model's second turn: it reads the tool results it was sent.
func answerFromTools(conv []gatewaytest.Turn) gatewaytest.Reply {
	var results []string
	for _, turn := range conv {
		if turn.Role == "tool" {
			results = append(results, turn.ToolCallID+"="+turn.Content)
		}
	}
	return gatewaytest.Reply{Content: "seen " + strings.Join(results, "; ")}
}

func TestRunToolsTwoSteps(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithChunkSize(11))
	gw.Enqueue(gatewaytest.Reply{
		Reasoning: "I need the weather, then a conversion",
		ToolCalls: []gatewaytest.ToolCall{
			{ID: "w", Name: "weather", Arguments: `{"city":"Paris"}`},
			{ID: "c", Name: "convert", Arguments: `{"celsius":20,"to":"fahrenheit"}`},
		},
		Usage:  &gatewaytest.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15},
		Quirks: gatewaytest.Quirks{InterleaveToolCalls: true, ArgChunkSize: 4, EmptyArgsFirst: true, BlankIDs: true},
	}, gatewaytest.Reply{Respond: func(conv []gatewaytest.Turn) gatewaytest.Reply {
		r := answerFromTools(conv)
		r.Usage = &gatewaytest.Usage{PromptTokens: 20, CompletionTokens: 3, TotalTokens: 23}
		return r
	}})

	run := gw.Client().Chat.RunTools(context.Background(), hello(), infergate.ToolLoop{Tools: []*infergate.FuncTool{weatherTool(t), convertTool(t)}})
	var kinds []string
	for ev, err := range run.Events() {
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Kind {
		case infergate.ToolEventTurn:
			kinds = append(kinds, fmt.Sprintf("turn%d:%d calls", ev.Step, len(ev.Message.ToolCalls)))
		case infergate.ToolEventResult:
			if ev.Result.Err != nil || ev.Result.Duration <= 0 {
				t.Errorf("result %+v", ev.Result)
			}
			kinds = append(kinds, "result")
		}
	}
	if got := strings.Join(kinds, ","); got != "turn1:2 calls,result,result,turn2:0 calls" {
		t.Errorf("events %s", got)
	}
	res, err := run.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if want := `seen w={"celsius":20,"city":"Paris"}; c=68`; res.Answer.Text() != want {
		t.Errorf("answer %q, want %q", res.Answer.Text(), want)
	}
	roles := make([]string, len(res.Messages))
	for i, m := range res.Messages {
		roles[i] = string(m.Role)
	}
	if strings.Join(roles, ",") != "user,assistant,tool,tool,assistant" || res.Steps != 2 || res.Usage.TotalTokens != 38 {
		t.Errorf("transcript %v, steps %d, usage %+v", roles, res.Steps, res.Usage)
	}
	second, _ := gw.LastRequest()
	turns := second.Turns()
	if len(turns) != 4 || turns[1].Reasoning != "I need the weather, then a conversion" || len(turns[1].ToolCalls) != 2 ||
		turns[1].ToolCalls[0].Arguments != `{"city":"Paris"}` || turns[3].ToolCallID != "c" {
		t.Errorf("the second request sent %+v", turns)
	}
	if len(second.JSON["tools"].([]any)) != 2 {
		t.Errorf("tools sent: %v", second.JSON["tools"])
	}

	// The transcript continues in a second run.
	gw.Enqueue(gatewaytest.Reply{Content: "you are welcome"})
	next := hello()
	next.Messages = append(res.Messages, infergate.UserMessage("thanks"))
	res2, err := gw.Client().Chat.RunTools(context.Background(), next, infergate.ToolLoop{Tools: []*infergate.FuncTool{weatherTool(t)}}).Wait()
	if err != nil || res2.Answer.Text() != "you are welcome" || len(res2.Messages) != 7 {
		t.Fatalf("second run: %v, %+v", err, res2)
	}
	third, _ := gw.LastRequest()
	if n := len(third.Turns()); n != 6 {
		t.Errorf("the continued conversation sent %d turns, want 6", n)
	}
}

// TestRunToolsFeedsFailuresBack pins the exact text the model reads for each kind of failure:
// short, plain and actionable, without library jargon; the *ToolError keeps the detail for logs.
func TestRunToolsFeedsFailuresBack(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	ran := atomic.Int32{}
	boom := mustTool(t, "boom", func(context.Context, struct{}) (string, error) { panic("kaput") })
	fails := mustTool(t, "fails", func(context.Context, struct{}) (string, error) { return "", errors.New("disk full") })
	strict := mustTool(t, "convert", func(_ context.Context, in convertArgs) (string, error) { ran.Add(1); return "ok", nil })
	getWeather := mustTool(t, "get_weather", func(_ context.Context, in cityArgs) (string, error) { ran.Add(1); return "ok", nil })
	want := map[string]string{
		"panic":     "boom failed: the tool crashed: kaput",
		"run":       "fails failed: disk full",
		"missing":   `Invalid arguments for get_weather: "city" is required.`,
		"type":      `Invalid arguments for convert: "celsius" must be a number, not a string.`,
		"enum":      `Invalid arguments for convert: "to" must be one of "fahrenheit", "kelvin".`,
		"unknown":   `Invalid arguments for get_weather: "town" is not a known property.`,
		"notjson":   "Invalid arguments for get_weather: they are not valid JSON.",
		"notobject": "Invalid arguments for get_weather: the arguments must be an object, not an array.",
		"notool":    `There is no tool named "x". Available tools: boom, fails, convert, get_weather.`,
	}
	gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
		{ID: "panic", Name: "boom", Arguments: `{}`},
		{ID: "run", Name: "fails", Arguments: `{}`},
		{ID: "missing", Name: "get_weather", Arguments: `{}`},
		{ID: "type", Name: "convert", Arguments: `{"celsius":"hot","to":"kelvin"}`},
		{ID: "enum", Name: "convert", Arguments: `{"celsius":1,"to":"rankine"}`},
		{ID: "unknown", Name: "get_weather", Arguments: `{"city":"Oslo","town":"Oslo"}`},
		{ID: "notjson", Name: "get_weather", Arguments: `{"city":`},
		{ID: "notobject", Name: "get_weather", Arguments: `[]`},
		{ID: "notool", Name: "x", Arguments: `{}`},
	}}, gatewaytest.Reply{Content: "ok"})
	run := gw.Client().Chat.RunTools(context.Background(), hello(), infergate.ToolLoop{Tools: []*infergate.FuncTool{boom, fails, strict, getWeather}})
	for ev, err := range run.Events() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind != infergate.ToolEventResult {
			continue
		}
		var te *infergate.ToolError
		if !errors.As(ev.Result.Err, &te) || te.Feedback() != ev.Result.Output || ev.Result.Err.Error() == ev.Result.Output ||
			!strings.HasPrefix(te.Error(), "infergate: ") {
			t.Errorf("result %+v: Output must be the ToolError's Feedback, and its Error text the detail for logs", ev.Result)
		}
	}
	if got := toolResults(t, gw); !reflect.DeepEqual(got, want) {
		for id := range want {
			if got[id] != want[id] {
				t.Errorf("%s: the model read\n\t%s\nwant\n\t%s", id, got[id], want[id])
			}
		}
	}
	if ran.Load() != 0 {
		t.Errorf("a tool ran on arguments its schema refuses")
	}
}

// TestRunToolsRunsCallsConcurrently proves the calls of one turn overlap: each waits until as many
// calls as allowed run at once, which never happens if they run one after the other; and no more
// than Goroutines ever do.
func TestRunToolsRunsCallsConcurrently(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		goroutines, wantMax int
	}{{0, 4}, {1, 1}, {2, 2}} {
		gw := gatewaytest.NewServer()
		var running, most atomic.Int32
		slow := mustTool(t, "slow", func(ctx context.Context, _ struct{}) (string, error) {
			n := running.Add(1)
			defer running.Add(-1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			for int(most.Load()) < tt.wantMax && ctx.Err() == nil { // a barrier: wait for the others
				runtime.Gosched()
			}
			return "done", nil
		})
		calls := make([]gatewaytest.ToolCall, 4)
		for i := range calls {
			calls[i] = gatewaytest.ToolCall{Name: "slow", Arguments: "{}"}
		}
		gw.Enqueue(gatewaytest.Reply{ToolCalls: calls}, gatewaytest.Reply{Content: "ok"})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := gw.Client().Chat.RunTools(ctx, hello(), infergate.ToolLoop{Tools: []*infergate.FuncTool{slow}, Goroutines: tt.goroutines}).Wait()
		cancel()
		gw.Close()
		if err != nil || int(most.Load()) != tt.wantMax {
			t.Errorf("Goroutines %d: %v, at most %d calls ran at once, want %d", tt.goroutines, err, most.Load(), tt.wantMax)
		}
	}
}

func TestRunToolsStepLimit(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	for range 5 {
		gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "weather", Arguments: `{"city":"Rome"}`}}})
	}
	res, err := gw.Client().Chat.RunTools(context.Background(), hello(), infergate.ToolLoop{Tools: []*infergate.FuncTool{weatherTool(t)}, MaxSteps: 3}).Wait()
	var loopErr *infergate.ToolLimitError
	if !errors.As(err, &loopErr) || !errors.Is(err, infergate.ErrToolStepLimit) || errors.Is(err, infergate.ErrToolCallLimit) ||
		loopErr.Limit != infergate.ToolLimitSteps || loopErr.Max != 3 || loopErr.Step != 3 || loopErr.Requested != 0 {
		t.Fatalf("err = %#v", err)
	}
	if loopErr.Usage != res.Usage || loopErr.Usage.TotalTokens == 0 {
		t.Errorf("the error's usage %+v, the result's %+v", loopErr.Usage, res.Usage)
	}
	if len(loopErr.Messages) != 7 || len(res.Messages) != 7 || res.Steps != 3 || gw.Pending() != 2 {
		t.Errorf("transcript %d messages (result %d), %d steps, %d replies left", len(loopErr.Messages), len(res.Messages), res.Steps, gw.Pending())
	}
}

func TestRunToolsCancellation(t *testing.T) {
	before := runtime.NumGoroutine()
	gw := gatewaytest.NewServer()
	gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "wait", Arguments: "{}"}, {Name: "wait", Arguments: "{}"}}})
	var entered sync.WaitGroup
	entered.Add(2)
	wait := mustTool(t, "wait", func(ctx context.Context, _ struct{}) (string, error) {
		entered.Done()
		<-ctx.Done()
		return "", ctx.Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		entered.Wait()
		cancel()
	}()
	_, err := gw.Client().Chat.RunTools(ctx, hello(), infergate.ToolLoop{Tools: []*infergate.FuncTool{wait}}).Wait()
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}

	// Breaking out of Events stops the loop and its running tools too.
	gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "wait", Arguments: "{}"}, {Name: "quick", Arguments: "{}"}}})
	quick := mustTool(t, "quick", func(context.Context, struct{}) (string, error) { return "", nil })
	entered.Add(1)
	for ev, err := range gw.Client().Chat.RunTools(context.Background(), hello(), infergate.ToolLoop{Tools: []*infergate.FuncTool{wait, quick}}).Events() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == infergate.ToolEventResult {
			break
		}
	}
	gw.Close()
	waitForGoroutines(t, before)
}

// BenchmarkRunToolsStep measures the loop's own cost per model turn against the fake gateway: one
// tool call and its result, then the answer.
func BenchmarkRunToolsStep(b *testing.B) {
	gw := gatewaytest.New(b)
	client := gw.Client()
	tools := infergate.ToolLoop{Tools: []*infergate.FuncTool{weatherTool(b)}}
	b.ReportAllocs()
	for b.Loop() {
		gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "weather", Arguments: `{"city":"Paris"}`}}}, gatewaytest.Reply{Content: "sunny"})
		if _, err := client.Chat.RunTools(context.Background(), hello(), tools).Wait(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/step")
}

// BenchmarkManualToolStep does by hand what BenchmarkRunToolsStep's loop does, so that the
// difference between the two is the loop's own overhead.
func BenchmarkManualToolStep(b *testing.B) {
	gw := gatewaytest.New(b)
	client := gw.Client()
	tool := weatherTool(b)
	req := hello()
	req.Tools = []infergate.Tool{tool.Definition()}
	turn := func(req infergate.ChatRequest) *infergate.ChatCompletion {
		stream, err := client.Chat.Stream(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		for stream.Next() {
		}
		if err := stream.Err(); err != nil {
			b.Fatal(err)
		}
		return stream.Completion()
	}
	b.ReportAllocs()
	for b.Loop() {
		gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "weather", Arguments: `{"city":"Paris"}`}}}, gatewaytest.Reply{Content: "sunny"})
		first := turn(req)
		msg := first.Choices[0].Message
		out, err := tool.Call(context.Background(), msg.ToolCalls[0].Function.Arguments)
		if err != nil {
			b.Fatal(err)
		}
		next := req
		next.Messages = append(append([]infergate.Message(nil), req.Messages...), msg, infergate.ToolResultMessage(msg.ToolCalls[0].ID, out))
		turn(next)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/step")
}

// MaxTokens bounds the tokens of all turns: the turn that crosses the budget still has its calls
// run, then no new turn starts; reaching the budget exactly goes on; a turn without a total counts
// its input plus output.
func TestRunToolsTokenBudget(t *testing.T) {
	t.Parallel()
	call := []gatewaytest.ToolCall{{Name: "weather", Arguments: `{"city":"Rome"}`}}
	for _, tc := range []struct {
		name      string
		maxTokens int
		second    gatewaytest.Usage
		wantLimit bool
	}{
		{"crossed", 100, gatewaytest.Usage{PromptTokens: 40, CompletionTokens: 10, TotalTokens: 50}, true},
		{"reached exactly", 100, gatewaytest.Usage{PromptTokens: 30, CompletionTokens: 10, TotalTokens: 40}, false},
		{"no total", 100, gatewaytest.Usage{PromptTokens: 40, CompletionTokens: 10}, true},
		{"no budget", 0, gatewaytest.Usage{PromptTokens: 4000, CompletionTokens: 1000, TotalTokens: 5000}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gw := gatewaytest.New(t)
			second := tc.second
			gw.Enqueue(
				gatewaytest.Reply{ToolCalls: call, Usage: &gatewaytest.Usage{PromptTokens: 50, CompletionTokens: 10, TotalTokens: 60}},
				gatewaytest.Reply{ToolCalls: call, Usage: &second},
				gatewaytest.Reply{Content: "sunny", Usage: &gatewaytest.Usage{TotalTokens: 1}},
			)
			res, err := gw.Client().Chat.RunTools(context.Background(), hello(),
				infergate.ToolLoop{Tools: []*infergate.FuncTool{weatherTool(t)}, MaxTokens: tc.maxTokens}).Wait()
			if !tc.wantLimit {
				if err != nil || res.Answer.Text() != "sunny" {
					t.Fatalf("err = %v, answer %q", err, res.Answer.Text())
				}
				return
			}
			var limit *infergate.ToolLimitError
			if !errors.As(err, &limit) || !errors.Is(err, infergate.ErrToolTokenLimit) || errors.Is(err, infergate.ErrToolStepLimit) ||
				limit.Limit != infergate.ToolLimitTokens || limit.Max != 100 || limit.Step != 2 {
				t.Fatalf("err = %#v", err)
			}
			// The request, two turns and both turns' tool results; the third turn never started.
			if len(limit.Messages) != 5 || limit.Messages[4].Role != infergate.RoleTool || gw.Pending() != 1 {
				t.Errorf("transcript of %d messages, %d replies left", len(limit.Messages), gw.Pending())
			}
			if limit.Usage != res.Usage || res.Usage.PromptTokens != 90 {
				t.Errorf("usage %+v, result's %+v", limit.Usage, res.Usage)
			}
		})
	}
	gw := gatewaytest.New(t)
	if _, err := gw.Client().Chat.RunTools(context.Background(), hello(), infergate.ToolLoop{MaxTokens: -1}).Wait(); !isValidation(err) || len(gw.Requests()) != 0 {
		t.Errorf("a negative MaxTokens: %v", err)
	}
}
