package einoinfergate

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
)

// bodyTransport answers every request with the same 200 event stream, in process.
type bodyTransport []byte

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_ = r.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(b)), Request: r}, nil
}

// FuzzStreamMessages feeds arbitrary bytes to Stream as the gateway's answer: it never panics,
// ends with an error exactly when the SDK's own stream does or brings no choice, and otherwise
// gives messages that schema.ConcatMessages folds into the SDK's completion as Generate would
// convert it (with one choice; with several, that they fold).
func FuzzStreamMessages(f *testing.F) {
	head := `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,`
	f.Add([]byte(head + `"delta":{"role":"assistant","content":"Hi"}}]}` + "\n\n" + head + `"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"))
	f.Add([]byte(head + `"delta":{"reasoning":"r","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}` +
		"\n\n" + head + `"delta":{"tool_calls":[{"function":{"arguments":"{\"x\":1}"}}]}}]}` + "\n\n" +
		head + `"delta":{"tool_calls":[{"id":"b","function":{"name":"g","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}` + "\n\n" +
		`data: {"id":"c","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"prompt_tokens_details":{"cached_tokens":1},"completion_tokens_details":{"reasoning_tokens":1}}}` + "\n\ndata: [DONE]\n\n"))
	f.Add([]byte(head + `"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"t"}]},{"type":"text","text":"x"}]}}]}` + "\n\n" +
		`data: {"error":{"message":"boom","status":502}}` + "\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		client, err := infergate.NewClient(infergate.WithAPIKey("k"), infergate.WithBaseURL("https://gateway.test"),
			infergate.WithHTTPClient(&http.Client{Transport: bodyTransport(body)}), infergate.WithMaxRetries(0))
		if err != nil {
			t.Fatal(err)
		}
		req := infergate.ChatRequest{Model: "m", Messages: []infergate.Message{infergate.UserMessage("q")}}
		var want *schema.Message
		choices := 0
		s, sdkErr := client.Chat.Stream(context.Background(), req)
		if sdkErr == nil {
			for s.Next() {
			}
			sdkErr = s.Err()
			want = fromCompletion(s.Completion())
			addServed(want, s.Completion().Model, nil)
			choices = len(s.Completion().Choices)
			s.Close()
			if sdkErr == nil && choices == 0 {
				sdkErr = errNoChoice // which the adapter reports, where the SDK has an empty message
			}
		}

		m, err := NewChatModel(client, "m")
		if err != nil {
			t.Fatal(err)
		}
		var msgs []*schema.Message
		sr, err := m.Stream(context.Background(), []*schema.Message{schema.UserMessage("q")})
		if err == nil {
			for {
				msg, rerr := sr.Recv()
				if rerr != nil {
					if !errors.Is(rerr, io.EOF) {
						err = rerr
					}
					break
				}
				msgs = append(msgs, msg)
			}
			sr.Close()
		}
		if (err == nil) != (sdkErr == nil) || errors.Is(sdkErr, errNoChoice) && !errors.Is(err, errNoChoice) {
			t.Fatalf("adapter's error %v, the SDK's %v", err, sdkErr)
		}
		if err != nil {
			return
		}
		got, err := schema.ConcatMessages(msgs)
		if choices > 1 {
			// Several answers to a request for one: the stream follows the first choice it sees,
			// the completion puts the lowest index first. Only the fold is checked.
			if err != nil {
				t.Fatalf("ConcatMessages: %v", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("ConcatMessages: %v", err)
		}
		if want.ResponseMeta.Usage != nil && got.ResponseMeta != nil && got.ResponseMeta.Usage != nil {
			// ConcatMessages does not carry the reasoning token count over.
			got.ResponseMeta.Usage.CompletionTokensDetails = want.ResponseMeta.Usage.CompletionTokensDetails
		}
		for i := range got.ToolCalls {
			// A stream's calls keep the indexes the server gave, which ConcatMessages sorts by;
			// an answer's are their positions.
			got.ToolCalls[i].Index = infergate.Ptr(i)
		}
		// The calls' fields are in the last message's Extra rather than each call's: both send
		// the same back.
		wantSent, err1 := toMessage(0, want)
		gotSent, err2 := toMessage(0, got)
		if err1 != nil || err2 != nil {
			t.Fatalf("sending back: %v, %v", err1, err2)
		}
		if d := cmp.Diff(wantSent, gotSent); d != "" {
			t.Fatalf("sent back (-Generate +Stream):\n%s", d)
		}
		delete(got.Extra, ExtraToolCallFields)
		if len(got.Extra) == 0 {
			got.Extra = nil
		}
		for i := range want.ToolCalls {
			want.ToolCalls[i].Extra = nil
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("concatenated stream (-Generate +Stream):\n%s", d)
		}
	})
}
