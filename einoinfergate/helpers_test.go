package einoinfergate_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/infergate/infergate-go/einoinfergate"
	"github.com/infergate/infergate-go/gatewaytest"
)

// newModel starts a fake gateway for t and returns a chat model on it.
func newModel(t *testing.T, opts ...einoinfergate.Option) (*einoinfergate.ChatModel, *gatewaytest.Server) {
	t.Helper()
	srv := gatewaytest.New(t)
	m, err := einoinfergate.NewChatModel(srv.Client(), gatewaytest.DefaultModel, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return m, srv
}

// drain reads a stream to its end, closing it, and returns its messages and the error that ended
// it (nil at io.EOF).
func drain(sr *schema.StreamReader[*schema.Message]) ([]*schema.Message, error) {
	defer sr.Close()
	var out []*schema.Message
	for {
		msg, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, msg)
	}
}

// streamed streams the answer to input and concatenates it as eino does.
func streamed(t *testing.T, m *einoinfergate.ChatModel, input []*schema.Message) (*schema.Message, []*schema.Message) {
	t.Helper()
	sr, err := m.Stream(context.Background(), input)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	msgs, err := drain(sr)
	if err != nil {
		t.Fatalf("Recv: %v", err)
	}
	got, err := schema.ConcatMessages(msgs)
	if err != nil {
		t.Fatalf("ConcatMessages: %v", err)
	}
	return got, msgs
}

func question(text string) []*schema.Message { return []*schema.Message{schema.UserMessage(text)} }

// rawStream is a text/event-stream body of the given data events, [DONE] last, for the shapes the
// fake does not script (fragments without an index, usage with cached and reasoning tokens).
func rawStream(events ...string) gatewaytest.ErrorReply {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("data: " + e + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return gatewaytest.ErrorReply{Status: 200, ContentType: "text/event-stream", Body: b.String()}
}

// rawJSON is a 200 answer with the given body.
func rawJSON(body string) gatewaytest.ErrorReply {
	return gatewaytest.ErrorReply{Status: 200, Body: body}
}
