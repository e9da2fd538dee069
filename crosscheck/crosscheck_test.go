package crosscheck

import (
	"context"
	"slices"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/infergate/infergate-go/gatewaytest"
)

// newClient returns an openai-go client for srv. Retries are off so that each scripted failure
// is seen once.
func newClient(srv *gatewaytest.Server) *openai.Client {
	c := openai.NewClient(
		option.WithBaseURL(srv.URL()+"/api/v1/"),
		option.WithAPIKey(gatewaytest.DefaultAPIKey),
		option.WithMaxRetries(0),
	)
	return &c
}

func userAsks(text string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    "llama-3.3-70b",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(text)},
	}
}

// call is a tool call as openai-go reassembled it.
type call struct{ ID, Name, Arguments string }

func TestChatCompletion(t *testing.T) {
	weather := []gatewaytest.ToolCall{{ID: "call_1", Name: "weather", Arguments: `{"city":"Paris"}`}}
	tests := []struct {
		name    string
		reply   gatewaytest.Reply
		params  openai.ChatCompletionNewParams
		content string
		calls   []call
		finish  string
	}{
		{"text", gatewaytest.Reply{Content: "Bonjour"}, userAsks("hi"), "Bonjour", nil, "stop"},
		{"tool call with null content", gatewaytest.Reply{ToolCalls: weather}, userAsks("weather?"),
			"", []call{{"call_1", "weather", `{"city":"Paris"}`}}, "tool_calls"},
		{"image parts accepted", gatewaytest.Reply{Content: "a cat"}, openai.ChatCompletionNewParams{
			Model: "qwen2.5-vl-72b",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
				openai.TextContentPart("What is this?"),
				openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: "https://example.com/cat.png"}),
				openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: "data:image/png;base64,iVBORw0KGgo="}),
			})},
		}, "a cat", nil, "stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := gatewaytest.NewServer(gatewaytest.WithReplies(tt.reply))
			defer srv.Close()
			resp, err := newClient(srv).Chat.Completions.New(context.Background(), tt.params)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Choices) != 1 {
				t.Fatalf("got %d choices: %s", len(resp.Choices), resp.RawJSON())
			}
			msg := resp.Choices[0].Message
			if msg.Content != tt.content || resp.Choices[0].FinishReason != tt.finish {
				t.Errorf("content %q, finish %q; want %q, %q", msg.Content, resp.Choices[0].FinishReason, tt.content, tt.finish)
			}
			if got := calls(msg.ToolCalls); !slices.Equal(got, tt.calls) {
				t.Errorf("tool calls = %v, want %v", got, tt.calls)
			}
			if resp.Model != tt.params.Model || resp.Usage.TotalTokens == 0 {
				t.Errorf("model %q, usage %+v", resp.Model, resp.Usage)
			}
			// The gateway's extra usage objects survive as unknown fields.
			for _, key := range []string{"usage_from_provider", "usage_from_consumer"} {
				if _, ok := resp.JSON.ExtraFields[key]; !ok {
					t.Errorf("%s missing from the extra fields", key)
				}
			}
		})
	}
}

func calls(tcs []openai.ChatCompletionMessageToolCallUnion) []call {
	var out []call
	for _, tc := range tcs {
		out = append(out, call{tc.ID, tc.Function.Name, tc.Function.Arguments})
	}
	return out
}
