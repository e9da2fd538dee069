package infergate

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

// Shapes of a streamed tool call, chosen by the fuzzer's flags.
const (
	shapePlaceholder  = 1 << iota // a lone "{}" fragment comes before the real arguments
	shapeNoIndex                  // fragments leave out "index"
	shapeEmptyIDs                 // later fragments repeat "id":"" and "type":""
	shapeRepeatIDs                // later fragments repeat the real id and name
	shapeTwoCalls                 // a second, parallel call follows with the same arguments
	shapeFinishInline             // finish_reason rides on the last fragment's chunk
	shapeNoDone                   // the stream ends at EOF instead of [DONE]
)

// splitRunes cuts s at random rune boundaries, as a provider's tokenizer would.
func splitRunes(s string, rng *rand.Rand) []string {
	var parts []string
	for len(s) > 0 {
		n := 1 + rng.IntN(min(len(s), 12))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		parts = append(parts, s[:n])
		s = s[n:]
	}
	return parts
}

// toolCallStream renders the events of calls streamed in fragments, with the quirks in shape.
func toolCallStream(args string, rng *rand.Rand, shape uint8) string {
	calls := 1
	if shape&shapeTwoCalls != 0 {
		calls = 2
	}
	chunk := func(delta map[string]any, finish any) string {
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		return string(b)
	}
	var events []string
	for c := range calls {
		id, name := fmt.Sprintf("call_%d", c), fmt.Sprintf("fn_%d", c)
		fragment := func(fn map[string]any, extra map[string]any) map[string]any {
			call := map[string]any{"function": fn}
			if shape&shapeNoIndex == 0 {
				call["index"] = c
			}
			for k, v := range extra {
				call[k] = v
			}
			return map[string]any{"tool_calls": []any{call}}
		}
		events = append(events, chunk(fragment(map[string]any{"name": name, "arguments": ""}, map[string]any{"id": id, "type": "function"}), nil))
		pieces := splitRunes(args, rng)
		if shape&shapePlaceholder != 0 {
			pieces = append([]string{"{}"}, pieces...)
		}
		for _, p := range pieces {
			extra := map[string]any{}
			fn := map[string]any{"arguments": p}
			switch {
			case shape&shapeRepeatIDs != 0:
				extra["id"], extra["type"], fn["name"] = id, "function", name
			case shape&shapeEmptyIDs != 0:
				extra["id"], extra["type"] = "", ""
			}
			events = append(events, chunk(fragment(fn, extra), nil))
		}
	}
	if shape&shapeFinishInline != 0 {
		var last map[string]any
		_ = json.Unmarshal([]byte(events[len(events)-1]), &last)
		last["choices"].([]any)[0].(map[string]any)["finish_reason"] = "tool_calls"
		b, _ := json.Marshal(last)
		events[len(events)-1] = string(b)
	} else {
		events = append(events, chunk(map[string]any{}, "tool_calls"))
	}
	if shape&shapeNoDone == 0 {
		events = append(events, "[DONE]")
	}
	return sseEvents(events...)
}

// streamFromMemory runs a ChatStream whose response body is body, served in random pieces.
func streamFromMemory(t *testing.T, body string, rng *rand.Rand) *ChatStream {
	t.Helper()
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: &chunkedBody{data: []byte(body), rng: rng}, Request: r}, nil
	})
	client, err := NewClient(WithAPIKey("k"), WithBaseURL("https://gateway.test"), WithHTTPClient(&http.Client{Transport: rt}))
	if err != nil {
		t.Fatal(err)
	}
	stream, err := client.Chat.Stream(context.Background(), ChatRequest{Messages: []Message{UserMessage("go")}})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	return stream
}

func compact(s string) (string, error) {
	var b bytes.Buffer
	err := json.Compact(&b, []byte(s))
	return b.String(), err
}

// FuzzToolCallArguments checks that valid argument JSON, streamed in any fragments with the quirks
// providers have (placeholder "{}", no index, empty or repeated ids), always comes back as the same
// JSON, both from Completion and from concatenating the deltas that Current returns.
func FuzzToolCallArguments(f *testing.F) {
	for i, args := range []string{
		`{"city":"Paris"}`, `{}`, `{"a":[1,2,{"b":"é ü 😀"}],"c":null}`, `{"s":"quote \" backslash \\ nl \n"}`,
		` { "x" : 1 } `, `{} `, `{"html":"<b>&amp;</b>"}`, `{"n":-1.5e+10,"t":true,"f":false}`,
	} {
		f.Add(args, uint64(i), uint8(i*37))
	}
	f.Fuzz(func(t *testing.T, args string, seed uint64, shape uint8) {
		if !utf8.ValidString(args) || !json.Valid([]byte(args)) {
			return
		}
		want, _ := compact(args)
		rng := rand.New(rand.NewPCG(seed, uint64(shape)))
		stream := streamFromMemory(t, toolCallStream(args, rng, shape), rng)
		deltas := map[int]string{}
		for stream.Next() {
			for _, choice := range stream.Current().Choices {
				for _, d := range choice.Delta.ToolCalls {
					deltas[d.Index] += d.Function.Arguments
				}
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatalf("stream failed: %v", err)
		}
		calls := stream.Completion().Choices[0].Message.ToolCalls
		if wantCalls := 1 + int(shape&shapeTwoCalls)/shapeTwoCalls; len(calls) != wantCalls {
			t.Fatalf("got %d tool calls, want %d: %+v", len(calls), wantCalls, calls)
		}
		for i, call := range calls {
			if call.ID != fmt.Sprintf("call_%d", i) || call.Function.Name != fmt.Sprintf("fn_%d", i) || call.Type != "function" {
				t.Errorf("call %d: id %q name %q type %q", i, call.ID, call.Function.Name, call.Type)
			}
			got, err := compact(call.Function.Arguments)
			if err != nil || got != want {
				t.Errorf("call %d: arguments %q, want %q (compact %v)", i, call.Function.Arguments, args, err)
			}
			if deltas[i] != call.Function.Arguments {
				t.Errorf("call %d: deltas concatenate to %q, Completion has %q", i, deltas[i], call.Function.Arguments)
			}
		}
	})
}

// FuzzErrorBody checks that any error body, JSON or not, becomes a typed error without panic, that a
// body that is not an envelope is shortened, and that the error's text names the status.
func FuzzErrorBody(f *testing.F) {
	for _, body := range []string{
		`{"detail":"Invalid API key"}`, `{"detail":[{"type":"missing","loc":["body","model"],"msg":"Field required"}]}`,
		`{"error":{"message":"no money","type":"invalid_request_error","code":"insufficient_balance","available":"0"}}`,
		`{"error":{"message":"m","code":429,"param":null,"status":"503"}}`, `{"error":"text"}`, `{"error":null}`,
		`{"providerModelError":{"providerModelError":{"error":{"message":"deep"}}}}`,
		`<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>`, `<title>unclosed`, ``, `null`,
		`<p>a <b>b</b> <script>x</SCRIPT> c</p><!-- d`, `<title>a<b>c</b></title>`, `<!DOCTYPE html><style>p{}</style>`,
		`[1,2]`, `1e300`, `inf`, `9999999999999`, `{"detail":{"nested":true}}`, "\xff\xfe", strings.Repeat(`{"providerModelError":`, 50),
		`{"success":false,"message":"key ` + secretKey + ` has no stake"}`, `{"error":"\u0073k-live-SECRETKEY0123456789abcdef"}`,
	} {
		f.Add([]byte(body), 500)
	}
	f.Fuzz(func(t *testing.T, body []byte, status int) {
		status = 100 + abs(status)%500
		header := http.Header{"X-Request-Id": {"ab12cd34"}, "Retry-After": {string(body[:min(len(body), 16)])}}
		cfg := &config{secretForms: secretForms(newSecret(secretKey))}
		header.Set("WWW-Authenticate", "Bearer "+string(body))
		e := cfg.newAPIError(status, header, body)
		text := e.Error()
		if out := fmt.Sprintf("%v %+v %#v %s", e, e, e, e.Body); strings.Contains(out, secretKey) {
			t.Fatalf("APIError leaks the key: %s", out)
		}
		if !strings.HasPrefix(text, fmt.Sprintf("infergate: %d ", status)) && !strings.HasPrefix(text, fmt.Sprintf("infergate: the server answered %d ", status)) {
			t.Fatalf("error text %q does not start with the status", text)
		}
		if _, isEnvelope := decodeEnvelope(body); !isEnvelope {
			if len(e.Message) > excerptLen+len("…") {
				t.Fatalf("non-envelope body gave a %d-byte message", len(e.Message))
			}
			if markup := bytes.HasPrefix(bytes.TrimSpace(body), []byte("<")); markup && !bytes.Contains(body, []byte("&")) && hasMarkup(e.Message) {
				t.Fatalf("body %q gave a message with markup: %q", body, e.Message)
			}
		}
		if e.RetryAfter < 0 {
			t.Fatalf("negative Retry-After %v", e.RetryAfter)
		}
		if errors.Is(e, ErrServer) != (status >= 500) {
			t.Fatalf("errors.Is(ErrServer) = %v for status %d", errors.Is(e, ErrServer), status)
		}
		se := cfg.newStreamError(body, status%2 == 0)
		if out := fmt.Sprintf("%v %+v %#v", se, se, se); strings.Contains(out, secretKey) {
			t.Fatalf("StreamError leaks the key: %s", out)
		}
		if errors.Is(se, ErrIncompleteStream) {
			t.Fatal("a skipped stream error must not match ErrIncompleteStream")
		}
		resp := &http.Response{StatusCode: 200, Header: header, Body: io.NopCloser(bytes.NewReader(body))}
		if err := cfg.errorIn200(&route{}, resp, body); err != nil && !bytes.Contains(body, []byte(`"error"`)) {
			t.Fatalf("a 200 body without an error key was taken as an error: %v", err)
		}
	})
}

// hasMarkup reports whether text holds the start of a tag, a comment or a declaration.
func hasMarkup(text string) bool {
	for i := strings.IndexByte(text, '<'); i >= 0; i = strings.IndexByte(text, '<') {
		if startsMarkup([]byte(text[i:])) {
			return true
		}
		text = text[i+1:]
	}
	return false
}

func abs(n int) int {
	if n < 0 {
		return -(n + 1)
	}
	return n
}

// FuzzImageDetection checks that detection never panics, accepts only the four formats, and that
// every image it accepts makes a data URI that the request validation accepts in turn.
func FuzzImageDetection(f *testing.F) {
	for _, data := range []string{
		"\xff\xd8\xff\xe0", "\x89PNG\r\n\x1a\n\x00\x00", "GIF89a", "GIF87a", "RIFF\x00\x00\x00\x00WEBPVP8 ",
		"RIFF\x00\x00\x00\x00WEBX", "%PDF-1.7", "", "\xff\xd8", "<svg xmlns='http://www.w3.org/2000/svg'/>",
	} {
		f.Add([]byte(data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		mime, err := detectImage(data)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("detection error %T is not a *ValidationError", err)
			}
			if _, err := ImageBytesPart(data); err == nil {
				t.Fatal("ImageBytesPart accepted bytes that detection refused")
			}
			return
		}
		switch mime {
		case "image/jpeg", "image/png", "image/gif", "image/webp":
		default:
			t.Fatalf("detected unsupported type %q", mime)
		}
		part, err := ImageBytesPart(data)
		if err != nil {
			t.Fatalf("ImageBytesPart: %v", err)
		}
		if err := validateImageURL("url", part.ImageURL.URL); err != nil {
			t.Fatalf("the SDK's own data URI was refused: %v", err)
		}
	})
}

// FuzzImageURL checks that URL validation never panics and accepts only https URLs and data URIs
// whose declared type is one of the four formats and matches the bytes.
func FuzzImageURL(f *testing.F) {
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\nrest"))
	for _, u := range []string{
		"https://example.com/cat.png", "http://example.com/cat.png", "data:image/png;base64," + png,
		"data:image/jpeg;base64," + png, "data:image/png;base64,", "data:image/png,raw", "data:;base64,AAAA",
		"data:image/png;base64,!!!!", "https://", "ftp://x", "", "data:image/gif;base64,R0lGODlh", "https://[::1",
	} {
		f.Add(u)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		err := validateImageURL("url", raw)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != "url" {
				t.Fatalf("error %v is not a *ValidationError for the field", err)
			}
			return
		}
		if declared, ok := strings.CutPrefix(raw, "data:"); ok {
			mime, _, _ := strings.Cut(declared, ";base64,")
			if _, known := map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}[mime]; !known {
				t.Fatalf("accepted a data URI declaring %q", mime)
			}
			return
		}
		if lower := strings.ToLower(raw); !strings.HasPrefix(lower, "https:") && !strings.HasPrefix(lower, "http:") {
			t.Fatalf("accepted %q, which is not http(s)", raw)
		}
	})
}
