package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// Random scripts of tool-calling turns, each call refused or approved: a loop that defers random
// calls, is kept as JSON at each pause and resumed by a fresh client with the same decisions as
// outcomes, sends the same requests and ends with the same transcript, steps and usage as a loop
// that decides every call inline with Approve.
func TestDeferredMatchesApproveProperty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(47, 1))
	cities := []string{"Paris", "Rome", "Oslo"}
	for iter := range infergate.Scaled(40) {
		var script []gatewaytest.Reply
		refuse, later := map[string]bool{}, map[string]bool{}
		for turn := range 1 + rng.IntN(4) {
			reply := gatewaytest.Reply{Usage: &gatewaytest.Usage{PromptTokens: 1 + rng.IntN(50), CompletionTokens: 1 + rng.IntN(9)}}
			reply.Usage.TotalTokens = reply.Usage.PromptTokens + reply.Usage.CompletionTokens
			for j := range 1 + rng.IntN(3) {
				id := fmt.Sprintf("t%dc%d", turn, j)
				refuse[id], later[id] = rng.IntN(3) == 0, rng.IntN(2) == 0
				call := gatewaytest.ToolCall{ID: id, Name: "weather", Arguments: fmt.Sprintf(`{"city":%q}`, cities[rng.IntN(len(cities))])}
				if rng.IntN(2) == 0 {
					call = gatewaytest.ToolCall{ID: id, Name: "convert", Arguments: fmt.Sprintf(`{"celsius":%d,"to":"kelvin"}`, rng.IntN(40))}
				}
				reply.ToolCalls = append(reply.ToolCalls, call)
			}
			script = append(script, reply)
		}
		script = append(script, answerUsing(9))
		name := fmt.Sprintf("%d: refuse %v defer %v", iter, refuse, later)

		tools := []*infergate.FuncTool{weatherTool(t), convertTool(t)}
		approve := func(_ context.Context, call infergate.ToolCall) error {
			if refuse[call.ID] {
				return errors.New("no " + call.ID)
			}
			return nil
		}
		inline := gatewaytest.New(t)
		inline.Enqueue(script...)
		want, err := inline.Client().Chat.RunTools(context.Background(), hello(), infergate.ToolLoop{Tools: tools, Approve: approve}).Wait()
		if err != nil {
			t.Fatalf("%s: inline: %v", name, err)
		}

		gw := gatewaytest.New(t)
		gw.Enqueue(script...)
		loop := infergate.ToolLoop{Tools: tools, Approve: approve, Defer: func(call infergate.ToolCall) bool { return later[call.ID] }}
		got, err := gw.Client().Chat.RunTools(context.Background(), hello(), loop).Wait()
		pauses := 0
		for paused := (*infergate.ToolsDeferredError)(nil); errors.As(err, &paused); pauses++ {
			raw, merr := json.Marshal(paused.State)
			var state infergate.ToolLoopState
			if merr != nil || json.Unmarshal(raw, &state) != nil {
				t.Fatalf("%s: state %s does not round trip: %v", name, raw, merr)
			}
			var outcomes []infergate.ToolOutcome
			for _, call := range paused.Pending {
				if refuse[call.ID] {
					outcomes = append(outcomes, infergate.ToolOutcome{CallID: call.ID, Output: "no " + call.ID, Refused: true})
					continue
				}
				tool := tools[0]
				if call.Function.Name == "convert" {
					tool = tools[1]
				}
				out, cerr := tool.Call(context.Background(), call.Function.Arguments)
				if cerr != nil {
					t.Fatalf("%s: %v", name, cerr)
				}
				outcomes = append(outcomes, infergate.ToolOutcome{CallID: call.ID, Output: out})
			}
			rng.Shuffle(len(outcomes), func(i, j int) { outcomes[i], outcomes[j] = outcomes[j], outcomes[i] })
			got, err = gw.Client().Chat.ResumeTools(context.Background(), state, outcomes, loop).Wait()
		}
		if err != nil {
			t.Fatalf("%s: after %d pauses: %v", name, pauses, err)
		}
		if diff := cmp.Diff(want.Messages, got.Messages); diff != "" {
			t.Fatalf("%s: transcripts differ (-inline +deferred):\n%s", name, diff)
		}
		if want.Steps != got.Steps || want.Usage != got.Usage || want.Answer.Text() != got.Answer.Text() {
			t.Fatalf("%s: steps %d/%d, usage %+v/%+v, answer %q/%q", name, want.Steps, got.Steps, want.Usage, got.Usage, want.Answer.Text(), got.Answer.Text())
		}
		sentInline, sent := inline.Requests(), gw.Requests()
		if len(sentInline) != len(sent) {
			t.Fatalf("%s: %d requests inline, %d deferred", name, len(sentInline), len(sent))
		}
		for i := range sent {
			if diff := cmp.Diff(sentInline[i].Turns(), sent[i].Turns()); diff != "" {
				t.Fatalf("%s: request %d differs (-inline +deferred):\n%s", name, i, diff)
			}
		}
	}
}

// Decoding a state from arbitrary JSON never panics; a state it accepts encodes again, and that
// encoding decodes to the same state.
func FuzzToolLoopStateJSON(f *testing.F) {
	gw := gatewaytest.NewServer()
	defer gw.Close()
	gw.Enqueue(threeCalls(40))
	weather, _ := infergate.NewTool("weather", "w", func(_ context.Context, in cityArgs) (string, error) { return in.City, nil })
	convert, _ := infergate.NewTool("convert", "c", func(_ context.Context, in convertArgs) (string, error) { return "1", nil })
	req := hello()
	req.Extra = map[string]any{"seed": 7}
	_, err := gw.Client().Chat.RunTools(context.Background(), req, infergate.ToolLoop{
		Tools: []*infergate.FuncTool{weather, convert}, Defer: deferConvert}).Wait()
	var paused *infergate.ToolsDeferredError
	if !errors.As(err, &paused) {
		f.Fatal(err)
	}
	valid, err := json.Marshal(paused.State)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add([]byte(`{"version":1,"step":1,"request":{"messages":[{"role":"assistant","tool_calls":[{"id":"a"}]}]},"outputs":[null]}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"version":1,"outputs":[null,"x"]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var state infergate.ToolLoopState
		if json.Unmarshal(b, &state) != nil {
			return
		}
		raw, err := json.Marshal(state)
		if err != nil {
			t.Fatalf("a decoded state does not encode: %v", err)
		}
		var again infergate.ToolLoopState
		if err := json.Unmarshal(raw, &again); err != nil {
			t.Fatalf("%s does not decode again: %v", raw, err)
		}
		if raw2, err := json.Marshal(again); err != nil || string(raw2) != string(raw) {
			t.Fatalf("encodings differ:\n%s\n%s (%v)", raw, raw2, err)
		}
	})
}
