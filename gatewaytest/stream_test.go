package gatewaytest_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/infergate/infergate-go/gatewaytest"
)

// streamOf scripts r on a fresh server and returns the raw stream body.
func streamOf(t *testing.T, r gatewaytest.Reply, opts ...gatewaytest.ServerOption) []byte {
	t.Helper()
	s := gatewaytest.New(t, append(opts, gatewaytest.WithReplies(r))...)
	resp, body := send(t, s, "POST", "/chat/completions", streamMsg("hi"))
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return body
}

// deltaText concatenates the content deltas of a stream.
func deltaText(t *testing.T, body []byte) string {
	var b strings.Builder
	for _, c := range chunks(t, body) {
		if ch := choice0(c); ch != nil {
			if d, ok := ch["delta"].(map[string]any); ok {
				s, _ := d["content"].(string)
				b.WriteString(s)
			}
		}
	}
	return b.String()
}

// toolDeltas returns the tool_calls entries of every chunk, in order.
func toolDeltas(t *testing.T, body []byte) []map[string]any {
	var out []map[string]any
	for _, c := range chunks(t, body) {
		if ch := choice0(c); ch != nil {
			d, _ := ch["delta"].(map[string]any)
			tcs, _ := d["tool_calls"].([]any)
			for _, tc := range tcs {
				out = append(out, tc.(map[string]any))
			}
		}
	}
	return out
}

func finishReasons(t *testing.T, body []byte) []any {
	var out []any
	for _, c := range chunks(t, body) {
		if ch := choice0(c); ch != nil && ch["finish_reason"] != nil {
			out = append(out, ch["finish_reason"])
		}
	}
	return out
}

func TestStreamDefault(t *testing.T) {
	body := streamOf(t, gatewaytest.Reply{Content: "Hello brave new world"})
	if !bytes.HasSuffix(body, []byte("\n\ndata: [DONE]\n\n")) || bytes.Contains(body, []byte("\r")) {
		t.Errorf("stream does not end with [DONE] in LF framing: %q", body[max(len(body)-40, 0):])
	}
	if got := deltaText(t, body); got != "Hello brave new world" {
		t.Errorf("content = %q", got)
	}
	cs := chunks(t, body)
	if d := choice0(cs[0])["delta"]; !reflect.DeepEqual(d, map[string]any{"role": "assistant"}) {
		t.Errorf("first delta = %v", d)
	}
	if got := finishReasons(t, body); !reflect.DeepEqual(got, []any{"stop"}) {
		t.Errorf("finish reasons = %v", got)
	}
	last := cs[len(cs)-1]
	if c, _ := last["choices"].([]any); c == nil || len(c) != 0 || last["usage"] == nil || last["usage_from_provider"] == nil {
		t.Errorf("usage chunk = %v", last)
	}
	for _, c := range cs {
		if c["object"] != "chat.completion.chunk" || c["id"] != cs[0]["id"] {
			t.Errorf("chunk header = %v %v", c["object"], c["id"])
		}
	}
}

func TestStreamIsDeterministicAndChunkingKeepsBytes(t *testing.T) {
	r := gatewaytest.Reply{Content: "same bytes every time", ToolCalls: []gatewaytest.ToolCall{{Name: "f", Arguments: `{"a":1}`}}}
	whole := streamOf(t, r)
	for _, n := range []int{1, 3, 7, 64} {
		if got := streamOf(t, r, gatewaytest.WithChunkSize(n)); !bytes.Equal(got, whole) {
			t.Errorf("chunk size %d changed the stream:\n%s\n%s", n, got, whole)
		}
	}
	if got := streamOf(t, r); !bytes.Equal(got, whole) {
		t.Error("two fresh servers streamed different bytes")
	}
}

func TestStreamToolCallShapes(t *testing.T) {
	calls := []gatewaytest.ToolCall{
		{ID: "call_1", Name: "weather", Arguments: `{"city":"Paris"}`},
		{ID: "call_2", Name: "time", Arguments: `{"tz":"CET"}`},
	}
	head := func(i int, id, name string, withArgs bool) map[string]any {
		fn := map[string]any{"name": name}
		if withArgs {
			fn["arguments"] = ""
		}
		return map[string]any{"index": float64(i), "id": id, "type": "function", "function": fn}
	}
	frag := func(i int, args string, blank bool) map[string]any {
		m := map[string]any{"index": float64(i), "function": map[string]any{"arguments": args}}
		if blank {
			m["id"], m["type"] = "", ""
		}
		return m
	}
	tests := []struct {
		name   string
		quirks gatewaytest.Quirks
		want   []map[string]any
	}{
		{"default split", gatewaytest.Quirks{}, []map[string]any{
			head(0, "call_1", "weather", true), frag(0, `{"city":"Paris"}`, false),
			head(1, "call_2", "time", true), frag(1, `{"tz":"CET"}`, false),
		}},
		{"empty args first", gatewaytest.Quirks{EmptyArgsFirst: true}, []map[string]any{
			head(0, "call_1", "weather", true), frag(0, `{}`, false), frag(0, `{"city":"Paris"}`, false),
			head(1, "call_2", "time", true), frag(1, `{}`, false), frag(1, `{"tz":"CET"}`, false),
		}},
		{"blank ids and small fragments", gatewaytest.Quirks{BlankIDs: true, ArgChunkSize: 8}, []map[string]any{
			head(0, "call_1", "weather", false), frag(0, `{"city":`, true), frag(0, `"Paris"}`, true),
			head(1, "call_2", "time", false), frag(1, `{"tz":"C`, true), frag(1, `ET"}`, true),
		}},
		{"whole calls", gatewaytest.Quirks{WholeToolCalls: true}, []map[string]any{
			{"index": 0.0, "id": "call_1", "type": "function", "function": map[string]any{"name": "weather", "arguments": `{"city":"Paris"}`}},
			{"index": 1.0, "id": "call_2", "type": "function", "function": map[string]any{"name": "time", "arguments": `{"tz":"CET"}`}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := streamOf(t, gatewaytest.Reply{ToolCalls: calls, Quirks: tt.quirks})
			if got := toolDeltas(t, body); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("tool deltas\n got %v\nwant %v", got, tt.want)
			}
			if got := finishReasons(t, body); !reflect.DeepEqual(got, []any{"tool_calls"}) {
				t.Errorf("finish reasons = %v", got)
			}
		})
	}
}

func TestStreamFinishOnLastDelta(t *testing.T) {
	body := streamOf(t, gatewaytest.Reply{
		ToolCalls: []gatewaytest.ToolCall{{ID: "c", Name: "f", Arguments: `{"x":1}`}},
		Quirks:    gatewaytest.Quirks{FinishOnLastDelta: true, BlankIDs: true},
	})
	var finishChunk map[string]any
	for _, c := range chunks(t, body) {
		if ch := choice0(c); ch != nil && ch["finish_reason"] != nil {
			finishChunk = ch
		}
	}
	d, _ := finishChunk["delta"].(map[string]any)
	tcs, _ := d["tool_calls"].([]any)
	if finishChunk["finish_reason"] != "tool_calls" || len(tcs) != 1 {
		t.Errorf("finish chunk = %v", finishChunk)
	}
}

func TestStreamQuirks(t *testing.T) {
	base := gatewaytest.Reply{Content: "a b c"} // events: role, 3 content, finish, usage
	with := func(q gatewaytest.Quirks) gatewaytest.Reply { r := base; r.Quirks = q; return r }
	tests := []struct {
		name  string
		reply gatewaytest.Reply
		check func(t *testing.T, body []byte, lines []string)
	}{
		{"in-band error", with(gatewaytest.Quirks{InBandError: &gatewaytest.StreamErrorEvent{After: 2, Message: "boom", Type: "server_error", Status: 500}}),
			func(t *testing.T, body []byte, lines []string) {
				if len(lines) != 3 || lines[2] != `data: {"error":{"message":"boom","status":500,"type":"server_error"}}` {
					t.Errorf("lines = %q", lines)
				}
			}},
		{"in-band error, null status", with(gatewaytest.Quirks{InBandError: &gatewaytest.StreamErrorEvent{}}),
			func(t *testing.T, body []byte, lines []string) {
				if len(lines) != 1 || lines[0] != `data: {"error":{"message":"provider request failed","status":null,"type":"provider_error"}}` {
					t.Errorf("lines = %q", lines)
				}
			}},
		{"junk lines", with(gatewaytest.Quirks{JunkLines: true}),
			func(t *testing.T, body []byte, lines []string) {
				if lines[1] != "data: provider failed, failover enabled" || !strings.HasPrefix(lines[2], `{"error":"`) {
					t.Errorf("lines = %q", lines[:3])
				}
				if deltaText(t, body) != "a b c" || lines[len(lines)-1] != "data: [DONE]" {
					t.Error("junk lines disturbed the rest of the stream")
				}
			}},
		{"no done", with(gatewaytest.Quirks{NoDone: true}),
			func(t *testing.T, body []byte, lines []string) {
				if bytes.Contains(body, []byte("[DONE]")) || len(finishReasons(t, body)) != 1 {
					t.Errorf("lines = %q", lines)
				}
			}},
		{"truncated", with(gatewaytest.Quirks{TruncateAfter: 3}),
			func(t *testing.T, body []byte, lines []string) {
				if len(lines) != 3 || len(finishReasons(t, body)) != 0 || deltaText(t, body) != "a b " {
					t.Errorf("lines = %q", lines)
				}
			}},
		{"crlf", with(gatewaytest.Quirks{CRLF: true}),
			func(t *testing.T, body []byte, lines []string) {
				if bytes.Count(body, []byte("\r\n\r\n")) != 7 || bytes.Count(body, []byte("\n")) != 14 {
					t.Errorf("body = %q", body)
				}
			}},
		{"keepalive", with(gatewaytest.Quirks{Keepalive: true}),
			func(t *testing.T, body []byte, lines []string) {
				if lines[0] != ": keepalive" || strings.Count(string(body), ": keepalive\n\n") != 7 {
					t.Errorf("lines = %q", lines)
				}
			}},
		{"no usage chunk", with(gatewaytest.Quirks{NoUsageChunk: true}),
			func(t *testing.T, body []byte, lines []string) {
				if len(lines) != 6 || bytes.Contains(body, []byte(`"choices":[]`)) {
					t.Errorf("lines = %q", lines)
				}
			}},
		{"explicit chunks", gatewaytest.Reply{Content: "ignored", Chunks: []string{"Hel", "lo"}},
			func(t *testing.T, body []byte, lines []string) {
				if deltaText(t, body) != "Hello" {
					t.Errorf("content = %q", deltaText(t, body))
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := streamOf(t, tt.reply)
			tt.check(t, body, events(body))
		})
	}
}

func TestStreamDelay(t *testing.T) {
	start := time.Now()
	body := streamOf(t, gatewaytest.Reply{Content: "a b", Quirks: gatewaytest.Quirks{Delay: 20 * time.Millisecond}})
	// Six events: role, two content, finish, usage, [DONE]; five gaps.
	if d := time.Since(start); d < 100*time.Millisecond || deltaText(t, body) != "a b" {
		t.Errorf("stream took %v", d)
	}
}

func TestStreamPreflightErrorsAreJSON(t *testing.T) {
	s := gatewaytest.New(t, gatewaytest.WithModels(gatewaytest.CatalogModel{ID: "model-one"}))
	m := streamMsg("x")
	m["model"] = "model-on"
	resp, body := send(t, s, "POST", "/chat/completions", m)
	if resp.StatusCode != 400 || resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(string(body), "model_not_found") {
		t.Errorf("%d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}
