package gatewaytest_test

import (
	"context"
	"errors"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

func TestClientTalksToServer(t *testing.T) {
	s := gatewaytest.New(t)
	s.Enqueue(gatewaytest.Reply{Content: "Paris"})
	c := s.Client()
	got, err := c.Chat.Create(context.Background(), infergate.ChatRequest{
		Model:    "llama-3.3-70b",
		Messages: []infergate.Message{infergate.UserMessage("Capital of France?")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Choices) != 1 || got.Choices[0].Message.Text() != "Paris" || got.UsageFromProvider == nil {
		t.Errorf("completion = %+v", got)
	}
	last, _ := s.LastRequest()
	if last.Path != "/api/v1/chat/completions" || last.Header.Get("Authorization") != "Bearer "+gatewaytest.DefaultAPIKey {
		t.Errorf("request = %s %s", last.Method, last.Path)
	}
}

func TestClientRetriesAndUserOptions(t *testing.T) {
	s := gatewaytest.New(t)
	s.FailNext(1, gatewaytest.DetailErrorReply(503, "busy").WithRetryAfter(0))
	got, err := s.Client(infergate.WithMaxRetries(1)).Chat.Create(context.Background(), infergate.ChatRequest{
		Messages: []infergate.Message{infergate.UserMessage("echo")},
	})
	if err != nil || got.Choices[0].Message.Text() != gatewaytest.DefaultAnswer("echo") || len(s.Requests()) != 2 {
		t.Fatalf("after one 503: %v, %d requests", err, len(s.Requests()))
	}

	s.FailNext(1, gatewaytest.DetailErrorReply(503, "busy"))
	_, err = s.Client(infergate.WithMaxRetries(0)).Chat.Create(context.Background(), infergate.ChatRequest{
		Messages: []infergate.Message{infergate.UserMessage("x")},
	})
	var apiErr *infergate.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 {
		t.Errorf("without retries: %v", err)
	}

	if _, err := s.Client(infergate.WithAPIKey("sk-wrong")).Chat.Create(context.Background(), infergate.ChatRequest{
		Messages: []infergate.Message{infergate.UserMessage("x")},
	}); !errors.As(err, &apiErr) || apiErr.StatusCode != 401 {
		t.Errorf("user option did not override the key: %v", err)
	}
}

func TestClientPanicsOnBadOption(t *testing.T) {
	s := gatewaytest.New(t)
	defer func() {
		if recover() == nil {
			t.Error("no panic for an invalid base URL")
		}
	}()
	s.Client(infergate.WithBaseURL("ftp://nope"))
}

func TestClientStreamsQuirkyToolCalls(t *testing.T) {
	s := gatewaytest.New(t, gatewaytest.WithChunkSize(5))
	s.Enqueue(gatewaytest.Reply{
		ToolCalls: []gatewaytest.ToolCall{{ID: "call_1", Name: "weather", Arguments: `{"city":"Paris"}`}},
		Quirks:    gatewaytest.Quirks{EmptyArgsFirst: true, BlankIDs: true, JunkLines: true, Keepalive: true, NoDone: true},
	})
	st, err := s.Client().Chat.Stream(context.Background(), infergate.ChatRequest{
		Messages: []infergate.Message{infergate.UserMessage("weather?")},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for st.Next() {
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	c := st.Completion()
	if len(c.Choices) != 1 || len(c.Choices[0].Message.ToolCalls) != 1 {
		t.Fatalf("completion = %+v", c)
	}
	tc := c.Choices[0].Message.ToolCalls[0]
	if tc.ID != "call_1" || tc.Function.Name != "weather" || tc.Function.Arguments != `{"city":"Paris"}` {
		t.Errorf("tool call = %+v", tc)
	}
}

// TestClientReadsEveryStreamShape streams, through the SDK, the shapes reasoning models and
// multi-choice requests produce, in each spelling the fake can send them, and creates the same
// answer without streaming.
func TestClientReadsEveryStreamShape(t *testing.T) {
	for _, spelling := range []string{"reasoning_content", "reasoning", "thinking"} {
		t.Run(spelling, func(t *testing.T) {
			s := gatewaytest.New(t, gatewaytest.WithChunkSize(9))
			reply := gatewaytest.Reply{
				Content: "two calls", Reasoning: "I need both tools",
				ToolCalls: []gatewaytest.ToolCall{
					{ID: "a", Name: "weather", Arguments: `{"city":"Paris"}`},
					{ID: "b", Name: "convert", Arguments: `{"from":"C","to":"F"}`},
				},
				MoreChoices: []gatewaytest.Reply{{Content: "second answer", Reasoning: "other thought"}},
				Quirks: gatewaytest.Quirks{ReasoningAs: spelling, ContentParts: true, InterleaveToolCalls: true,
					ArgChunkSize: 3, EmptyArgsFirst: true, BlankIDs: true},
			}
			s.Enqueue(reply, reply)
			req := infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessage("go")}, N: infergate.Ptr(2)}
			stream, err := s.Client().Chat.Stream(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			for stream.Next() {
			}
			if err := stream.Err(); err != nil {
				t.Fatal(err)
			}
			created, err := s.Client().Chat.Create(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			for name, got := range map[string]*infergate.ChatCompletion{"stream": stream.Completion(), "create": created} {
				if len(got.Choices) != 2 {
					t.Fatalf("%s: %d choices", name, len(got.Choices))
				}
				first, second := got.Choices[0].Message, got.Choices[1].Message
				if first.Content != "two calls" || first.Reasoning != "I need both tools" ||
					second.Content != "second answer" || second.Reasoning != "other thought" {
					t.Errorf("%s: messages %+v / %+v", name, first, second)
				}
				if len(first.ToolCalls) != 2 || first.ToolCalls[0].Function.Arguments != `{"city":"Paris"}` ||
					first.ToolCalls[1].ID != "b" || first.ToolCalls[1].Function.Arguments != `{"from":"C","to":"F"}` {
					t.Errorf("%s: tool calls %+v", name, first.ToolCalls)
				}
			}
		})
	}
}
