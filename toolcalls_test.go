package infergate_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// toolResults returns what the model was sent for each call id in the last request.
func toolResults(t *testing.T, gw *gatewaytest.Server) map[string]string {
	t.Helper()
	req, ok := gw.LastRequest()
	if !ok {
		t.Fatal("no request reached the gateway")
	}
	seen := map[string]string{}
	for _, turn := range req.Turns() {
		if turn.Role == "tool" {
			seen[turn.ToolCallID] = turn.Content
		}
	}
	return seen
}

// TestRunToolsGoexit: a tool that ends its goroutine with runtime.Goexit (t.FailNow in a test tool)
// is a crashed call, like a panic; the loop neither hangs nor loses the other calls.
func TestRunToolsGoexit(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	exits := mustTool(t, "exits", func(context.Context, struct{}) (string, error) { runtime.Goexit(); return "", nil })
	calls := []gatewaytest.ToolCall{{ID: "a", Name: "exits", Arguments: "{}"}, {ID: "b", Name: "weather", Arguments: `{"city":"Oslo"}`},
		{ID: "c", Name: "exits", Arguments: "{}"}, {ID: "d", Name: "weather", Arguments: `{"city":"Rome"}`}}
	gw.Enqueue(gatewaytest.Reply{ToolCalls: calls}, gatewaytest.Reply{Content: "done"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var crashed atomic.Int32
	run := gw.Client().Chat.RunTools(ctx, hello(), infergate.ToolLoop{Tools: []*infergate.FuncTool{exits, weatherTool(t)}, Goroutines: 1})
	for ev, err := range run.Events() {
		if err != nil {
			t.Fatal(err)
		}
		var te *infergate.ToolError
		if ev.Kind == infergate.ToolEventResult && errors.As(ev.Result.Err, &te) && te.Stage == infergate.ToolStagePanic {
			crashed.Add(1)
		}
	}
	if crashed.Load() != 2 {
		t.Errorf("%d calls reported as crashed, want 2", crashed.Load())
	}
	seen := toolResults(t, gw)
	if seen["a"] != "exits failed: the tool crashed: it called runtime.Goexit" || seen["c"] != seen["a"] ||
		!strings.Contains(seen["b"], "Oslo") || !strings.Contains(seen["d"], "Rome") {
		t.Errorf("the model saw %q", seen)
	}
}

// TestRunToolsGoroutinesBoundWorkers: a turn of many calls runs on Goroutines goroutines, not one
// goroutine per call waiting for its turn.
func TestRunToolsGoroutinesBoundWorkers(t *testing.T) {
	const n = 2000
	gw := gatewaytest.New(t)
	calls := make([]gatewaytest.ToolCall, n)
	for i := range calls {
		calls[i] = gatewaytest.ToolCall{Name: "count", Arguments: "{}"}
	}
	gw.Enqueue(gatewaytest.Reply{ToolCalls: calls}, gatewaytest.Reply{Content: "done"})
	var most atomic.Int64
	before := int64(runtime.NumGoroutine())
	count := mustTool(t, "count", func(context.Context, struct{}) (string, error) {
		for g := int64(runtime.NumGoroutine()); g > most.Load(); {
			if most.CompareAndSwap(most.Load(), g) {
				break
			}
		}
		return "1", nil
	})
	res, err := gw.Client().Chat.RunTools(context.Background(), hello(),
		infergate.ToolLoop{Tools: []*infergate.FuncTool{count}, Goroutines: 2, MaxToolCalls: n}).Wait()
	if err != nil || res.Answer.Text() != "done" {
		t.Fatalf("%v, %+v", err, res)
	}
	if extra := most.Load() - before; extra > 50 {
		t.Errorf("%d goroutines more than before the loop while its %d calls ran, with Goroutines: 2", extra, n)
	}
}

// TestRunToolsCallLimit: a turn that asks for more calls than MaxToolCalls (default 64) ends the
// loop with a typed error before any call runs; the transcript stops before that turn.
func TestRunToolsCallLimit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ limit, requested, wantLimit int }{{0, 65, 64}, {3, 4, 3}} {
		gw := gatewaytest.New(t)
		var ran atomic.Int32
		count := mustTool(t, "count", func(context.Context, struct{}) (string, error) { ran.Add(1); return "1", nil })
		calls := make([]gatewaytest.ToolCall, tt.requested)
		for i := range calls {
			calls[i] = gatewaytest.ToolCall{Name: "count", Arguments: "{}"}
		}
		gw.Enqueue(gatewaytest.Reply{ToolCalls: calls[:1]}, gatewaytest.Reply{ToolCalls: calls})
		res, err := gw.Client().Chat.RunTools(context.Background(), hello(),
			infergate.ToolLoop{Tools: []*infergate.FuncTool{count}, MaxToolCalls: tt.limit}).Wait()
		var limitErr *infergate.ToolLimitError
		if !errors.As(err, &limitErr) || !errors.Is(err, infergate.ErrToolCallLimit) || errors.Is(err, infergate.ErrToolStepLimit) ||
			limitErr.Limit != infergate.ToolLimitCalls || limitErr.Max != tt.wantLimit || limitErr.Requested != tt.requested || limitErr.Step != 2 {
			t.Fatalf("limit %d: err = %#v", tt.limit, err)
		}
		if ran.Load() != 1 || len(res.Messages) != 3 || len(limitErr.Messages) != 3 {
			t.Errorf("limit %d: %d calls ran (want the first turn's only), transcript of %d messages (want 3)", tt.limit, ran.Load(), len(res.Messages))
		}
		if want := fmt.Sprintf("asked for %d tool calls; ToolLoop.MaxToolCalls allows %d", tt.requested, tt.wantLimit); !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// TestRunToolsApprove: a refused call never runs, its refusal's text is the model's result, and
// events report it as a ToolStageRefused error that wraps the refusal; approved calls run. Approve
// is never called concurrently, and not for calls whose arguments were refused already.
func TestRunToolsApprove(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	var deleted atomic.Int32
	deleteFile := mustTool(t, "delete_file", func(context.Context, struct {
		Path string `json:"path"`
	}) (string, error) {
		deleted.Add(1)
		return "deleted", nil
	})
	gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
		{ID: "1", Name: "delete_file", Arguments: `{"path":"/etc/passwd"}`},
		{ID: "2", Name: "delete_file", Arguments: `{"path":"/tmp/x"}`},
		{ID: "3", Name: "weather", Arguments: `{"city":"Oslo"}`},
		{ID: "4", Name: "delete_file", Arguments: `{}`},
	}}, gatewaytest.Reply{Content: "ok"})
	errDenied := errors.New("The user did not allow deleting /etc/passwd.")
	var asked []string
	var inside atomic.Int32
	var mu sync.Mutex
	approve := func(_ context.Context, call infergate.ToolCall) error {
		if inside.Add(1) > 1 {
			t.Error("Approve called concurrently")
		}
		defer inside.Add(-1)
		mu.Lock()
		asked = append(asked, call.ID)
		mu.Unlock()
		runtime.Gosched()
		if strings.Contains(call.Function.Arguments, "/etc") {
			return errDenied
		}
		return nil
	}
	run := gw.Client().Chat.RunTools(context.Background(), hello(),
		infergate.ToolLoop{Tools: []*infergate.FuncTool{deleteFile, weatherTool(t)}, Approve: approve, Goroutines: 4})
	refused := 0
	for ev, err := range run.Events() {
		if err != nil {
			t.Fatal(err)
		}
		var te *infergate.ToolError
		if ev.Kind == infergate.ToolEventResult && errors.As(ev.Result.Err, &te) && te.Stage == infergate.ToolStageRefused {
			refused++
			if ev.Result.Call.ID != "1" || !errors.Is(ev.Result.Err, errDenied) || ev.Result.Output != errDenied.Error() {
				t.Errorf("refused result %+v", ev.Result)
			}
		}
	}
	if refused != 1 || deleted.Load() != 1 {
		t.Errorf("%d refusals reported, %d deletions ran; want 1 and 1", refused, deleted.Load())
	}
	mu.Lock()
	if len(asked) != 3 {
		t.Errorf("Approve asked about %v, want 1, 2 and 3 (4's arguments are invalid)", asked)
	}
	mu.Unlock()
	seen := toolResults(t, gw)
	if seen["1"] != "The user did not allow deleting /etc/passwd." || seen["2"] != "deleted" ||
		seen["4"] != `Invalid arguments for delete_file: "path" is required.` {
		t.Errorf("the model saw %q", seen)
	}
}

// TestRunToolsToolTimeout: a call that outlives ToolTimeout has its context cancelled and is a
// ToolStageTimeout error that the model reads; the loop goes on to its answer, the other call's
// result is kept, and no goroutine is left behind. The bound leaves the quick call time to finish
// on a loaded machine, since it bounds the check of its arguments too.
func TestRunToolsToolTimeout(t *testing.T) {
	before := runtime.NumGoroutine()
	gw := gatewaytest.NewServer()
	var sawDeadline atomic.Bool
	hang := mustTool(t, "hang", func(ctx context.Context, _ struct{}) (string, error) {
		<-ctx.Done()
		sawDeadline.Store(errors.Is(ctx.Err(), context.DeadlineExceeded))
		return "too late", nil
	})
	gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
		{ID: "h", Name: "hang", Arguments: "{}"}, {ID: "w", Name: "weather", Arguments: `{"city":"Oslo"}`},
	}}, gatewaytest.Reply{Respond: answerFromTools})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	run := gw.Client().Chat.RunTools(ctx, hello(), infergate.ToolLoop{Tools: []*infergate.FuncTool{hang, weatherTool(t)}, ToolTimeout: 500 * time.Millisecond})
	var timedOut *infergate.ToolResult
	for ev, err := range run.Events() {
		if err != nil {
			t.Fatal(err)
		}
		var te *infergate.ToolError
		if ev.Kind == infergate.ToolEventResult && errors.As(ev.Result.Err, &te) && te.Stage == infergate.ToolStageTimeout {
			timedOut = ev.Result
		}
	}
	res, err := run.Wait()
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	if timedOut == nil || timedOut.Call.ID != "h" || !errors.Is(timedOut.Err, context.DeadlineExceeded) || !sawDeadline.Load() {
		t.Fatalf("timed-out result %+v; the tool saw its deadline: %v", timedOut, sawDeadline.Load())
	}
	want := `seen h=hang failed: it did not finish within 500ms.; w={"celsius":20,"city":"Oslo"}`
	if res.Answer.Text() != want {
		t.Errorf("answer %q, want %q", res.Answer.Text(), want)
	}
	for _, loop := range []infergate.ToolLoop{{ToolTimeout: -time.Second}, {MaxSteps: -1}, {Goroutines: -1}, {MaxToolCalls: -1}} {
		sent := len(gw.Requests())
		if _, err := gw.Client().Chat.RunTools(context.Background(), hello(), loop).Wait(); !isValidation(err) || len(gw.Requests()) != sent {
			t.Errorf("a negative bound in %+v: %v, want a ValidationError before sending", loop, err)
		}
	}
	gw.Close()
	waitForGoroutines(t, before)
}

// TestRunToolsObservesEveryCall: a call that ends its goroutine, one that Approve refuses and one
// that times out each end their execute_tool operation, as errors, so that no span stays open.
func TestRunToolsObservesEveryCall(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	exits := mustTool(t, "exits", func(context.Context, struct{}) (string, error) { runtime.Goexit(); return "", nil })
	hang := mustTool(t, "hang", func(ctx context.Context, _ struct{}) (string, error) { <-ctx.Done(); return "", ctx.Err() })
	gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
		{Name: "exits", Arguments: "{}"}, {Name: "hang", Arguments: "{}"}, {Name: "weather", Arguments: `{"city":"Oslo"}`},
	}}, gatewaytest.Reply{Content: "done"})
	var mu sync.Mutex
	var ended []string
	observe := func(ctx context.Context, op infergate.Operation) (context.Context, *infergate.OperationHooks) {
		return ctx, &infergate.OperationHooks{End: func(e infergate.OperationEnd) {
			var te *infergate.ToolError
			if op.Tool != nil && errors.As(e.Err, &te) {
				mu.Lock()
				ended = append(ended, op.Tool.Function.Name+":"+string(te.Stage))
				mu.Unlock()
			}
		}}
	}
	refuseWeather := func(_ context.Context, call infergate.ToolCall) error {
		if call.Function.Name == "weather" {
			return errors.New("no")
		}
		return nil
	}
	_, err := gw.Client().Chat.RunTools(context.Background(), hello(), infergate.ToolLoop{
		Tools: []*infergate.FuncTool{exits, hang, weatherTool(t)}, Approve: refuseWeather, ToolTimeout: 250 * time.Millisecond, // long enough that "exits" always ends first, even on a loaded machine
	}, infergate.WithObserver(observe)).Wait()
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(ended)
	if want := []string{"exits:panic", "hang:timeout", "weather:refused"}; !slices.Equal(ended, want) {
		t.Errorf("operations ended %q, want %q", ended, want)
	}
}
