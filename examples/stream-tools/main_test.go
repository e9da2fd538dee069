package main

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// TestOutput runs what main runs, against the fake gateway.
func TestOutput(t *testing.T) {
	t.Setenv("INFERGATE_API_KEY", "")
	t.Setenv("INFERGATE_BASE_URL", "")
	var out strings.Builder
	client, stop, err := gatewaytest.Connect(&out, os.Getenv, fake...)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := run(context.Background(), &out, client); err != nil {
		t.Fatal(err)
	}
	want := `using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)
tool: get_weather({"city":"Lisbon"}) = {"city":"Lisbon","sky":"sunny","temperature_c":21}
It is sunny in Lisbon, at 21 °C.
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// TestToolResultGoesBack checks the second turn: the assistant's call, then the result naming it.
func TestToolResultGoesBack(t *testing.T) {
	srv := gatewaytest.New(t, fake...)
	if err := run(context.Background(), new(strings.Builder), srv.Client()); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("sent %d requests, want 2", len(reqs))
	}
	for i, r := range reqs {
		if r.JSON["stream"] != true || r.JSON["tools"] == nil {
			t.Errorf("request %d is not a streamed request with tools: %s", i, r.Body)
		}
	}
	msgs := reqs[1].JSON["messages"].([]any)
	if len(msgs) != 3 {
		t.Fatalf("second turn has %d messages, want user, assistant, tool: %s", len(msgs), reqs[1].Body)
	}
	calls := msgs[1].(map[string]any)["tool_calls"].([]any)
	call := calls[0].(map[string]any)
	fn := call["function"].(map[string]any)
	if fn["name"] != "get_weather" || fn["arguments"] != `{"city":"Lisbon"}` {
		t.Errorf("assistant call = %v, want get_weather with the real arguments", call)
	}
	result := msgs[2].(map[string]any)
	if result["role"] != "tool" || result["tool_call_id"] != call["id"] || call["id"] == "" {
		t.Errorf("tool message = %v, want it to answer call %v", result, call["id"])
	}
}

func TestRunFails(t *testing.T) {
	tests := []struct {
		name    string
		reply   gatewaytest.Reply
		wantErr error
	}{
		{"error inside the stream", gatewaytest.Reply{Content: "It is", Quirks: gatewaytest.Quirks{
			InBandError: &gatewaytest.StreamErrorEvent{After: 2}}}, infergate.ErrIncompleteStream},
		{"stream cut short", gatewaytest.Reply{Content: "It is sunny", Quirks: gatewaytest.Quirks{
			TruncateAfter: 2}}, infergate.ErrIncompleteStream},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := gatewaytest.New(t, gatewaytest.WithReplies(tt.reply))
			err := run(context.Background(), new(strings.Builder), srv.Client())
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestCallTool(t *testing.T) {
	tests := []struct {
		name string
		fn   infergate.FunctionCall
		want string
	}{
		{"weather", infergate.FunctionCall{Name: "get_weather", Arguments: `{"city":"Porto"}`},
			`{"city":"Porto","sky":"sunny","temperature_c":21}`},
		{"unknown tool", infergate.FunctionCall{Name: "get_time", Arguments: `{}`}, `{"error":"no such tool"}`},
		{"no city", infergate.FunctionCall{Name: "get_weather", Arguments: `{}`}, `{"error":"arguments must be {\"city\": \"...\"}"}`},
		{"broken arguments", infergate.FunctionCall{Name: "get_weather", Arguments: `{"city":`}, `{"error":"arguments must be {\"city\": \"...\"}"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := callTool(tt.fn); got != tt.want {
				t.Errorf("callTool = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestRunStopsAModelThatOnlyCallsTools(t *testing.T) {
	call := gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "get_weather", Arguments: `{"city":"Faro"}`}}}
	srv := gatewaytest.New(t)
	for range maxTurns + 1 {
		srv.Enqueue(call)
	}
	err := run(context.Background(), new(strings.Builder), srv.Client())
	if err == nil || !strings.Contains(err.Error(), "no answer after 5 turns") {
		t.Errorf("err = %v, want the turn limit", err)
	}
	if got := len(srv.Requests()); got != maxTurns {
		t.Errorf("sent %d requests, want %d", got, maxTurns)
	}
}
