package lcinfergate_test

import (
	"context"
	"testing"

	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/lcinfergate"
	"github.com/tmc/langchaingo/llms"
)

// human is a one-text user message.
func human(text string) llms.MessageContent {
	return llms.TextParts(llms.ChatMessageTypeHuman, text)
}

// generate asks llm and fails the test on an error.
func generate(t *testing.T, llm *lcinfergate.LLM, msgs []llms.MessageContent, opts ...llms.CallOption) *llms.ContentResponse {
	t.Helper()
	resp, err := llm.GenerateContent(context.Background(), msgs, opts...)
	if err != nil {
		t.Fatalf("GenerateContent: %v", err)
	}
	return resp
}

// lastRequest is the server's last request, which the test must have made.
func lastRequest(t *testing.T, s *gatewaytest.Server) gatewaytest.Request {
	t.Helper()
	r, ok := s.LastRequest()
	if !ok {
		t.Fatal("no request reached the server")
	}
	return r
}

// streaming collects what a streaming function receives.
func streaming(pieces *[]string) llms.CallOption {
	return llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
		*pieces = append(*pieces, string(chunk))
		return nil
	})
}
