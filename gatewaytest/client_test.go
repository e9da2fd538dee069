package gatewaytest_test

import (
	"context"
	"errors"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

func TestClientTalksToServer(t *testing.T) {
	s := gatewaytest.NewServer()
	defer s.Close()
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
	if last.Path != "/api/v1/chat/completions" || last.Header.Get("Authorization") != "Bearer "+gatewaytest.APIKey {
		t.Errorf("request = %s %s", last.Method, last.Path)
	}
}

func TestClientRetriesAndUserOptions(t *testing.T) {
	s := gatewaytest.NewServer()
	defer s.Close()
	s.FailNext(1, gatewaytest.DetailError(503, "busy").WithRetryAfter(0))
	got, err := s.Client(infergate.WithMaxRetries(1)).Chat.Create(context.Background(), infergate.ChatRequest{
		Messages: []infergate.Message{infergate.UserMessage("echo")},
	})
	if err != nil || got.Choices[0].Message.Text() != "echo" || len(s.Requests()) != 2 {
		t.Fatalf("after one 503: %v, %d requests", err, len(s.Requests()))
	}

	s.FailNext(1, gatewaytest.DetailError(503, "busy"))
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
	s := gatewaytest.NewServer()
	defer s.Close()
	defer func() {
		if recover() == nil {
			t.Error("no panic for an invalid base URL")
		}
	}()
	s.Client(infergate.WithBaseURL("ftp://nope"))
}

func TestClientStreamsQuirkyToolCalls(t *testing.T) {
	s := gatewaytest.NewServer(gatewaytest.WithChunkSize(5))
	defer s.Close()
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
