package gatewaytest_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// TestWithResponder: queued replies come first; then every completion, plain or streamed, is the
// responder's reply to its request, for as many requests as come, concurrent ones too.
func TestWithResponder(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := 0
	s := gatewaytest.New(t, gatewaytest.WithReplies(gatewaytest.Reply{Content: "queued"}),
		gatewaytest.WithResponder(func(r gatewaytest.Request) gatewaytest.Reply {
			mu.Lock()
			seen++
			mu.Unlock()
			turns := r.Turns()
			return gatewaytest.Reply{Content: fmt.Sprintf("%v heard %q", r.JSON["model"], turns[len(turns)-1].Content)}
		}))
	client := s.Client()
	ask := func(q string) string {
		t.Helper()
		resp, err := client.Chat.Create(context.Background(), infergate.ChatRequest{Model: "qwen2.5-vl-72b",
			Messages: []infergate.Message{infergate.UserMessage(q)}})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Text()
	}
	if got := ask("first"); got != "queued" {
		t.Fatalf("first answer = %q, want the queued reply", got)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			q := fmt.Sprintf("question %d", i)
			if got, want := ask(q), fmt.Sprintf("qwen2.5-vl-72b heard %q", q); got != want {
				t.Errorf("answer = %q, want %q", got, want)
			}
		})
	}
	wg.Wait()
	stream, err := client.Chat.Stream(context.Background(), infergate.ChatRequest{Model: "llama-3.3-70b",
		Messages: []infergate.Message{infergate.UserMessage("streamed")}})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	for _, err := range stream.All() {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := stream.Completion().Text(); got != `llama-3.3-70b heard "streamed"` {
		t.Errorf("streamed answer = %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if seen != 21 || s.Pending() != 0 {
		t.Errorf("responder called %d times, %d pending; want 21 and none", seen, s.Pending())
	}
}

// TestWithResponderReplyIsUsedAsQueued: the responder's reply is taken as a queued one is, its
// Respond included.
func TestWithResponderReplyIsUsedAsQueued(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t, gatewaytest.WithResponder(func(gatewaytest.Request) gatewaytest.Reply {
		return gatewaytest.Reply{FinishReason: "length", Respond: func(turns []gatewaytest.Turn) gatewaytest.Reply {
			return gatewaytest.Reply{Content: fmt.Sprint(len(turns), " turns"), FinishReason: "length"}
		}}
	}))
	resp, err := s.Client().Chat.Create(context.Background(), infergate.ChatRequest{
		Messages: []infergate.Message{infergate.SystemMessage("s"), infergate.UserMessage("u")}})
	if err != nil || resp.Text() != "2 turns" || resp.Choices[0].FinishReason != "length" {
		t.Fatalf("answer = %+v, %v; want the Respond of the responder's reply", resp, err)
	}
}

// TestDefaultAnswer: the default answer says it is the fake's, quotes the start of the question
// on one line, and depends on the question alone.
func TestDefaultAnswer(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 40)
	for _, q := range []string{"What is up?", "", "  \n\t", "a\nb", long, strings.Repeat("é", 100), "\xff\xfe"} {
		got := gatewaytest.DefaultAnswer(q)
		if got != gatewaytest.DefaultAnswer(q) || !strings.HasPrefix(got, "This is the fake gateway's answer") ||
			strings.Contains(got, "\n") || !utf8.ValidString(got) || utf8.RuneCountInString(got) > 160 {
			t.Errorf("DefaultAnswer(%q) = %q", q, got)
		}
		start := []rune(strings.Join(strings.Fields(q), " "))
		if start = start[:min(len(start), 20)]; utf8.ValidString(q) && !strings.Contains(got, string(start)) {
			t.Errorf("DefaultAnswer(%q) = %q, want the question quoted", q, got)
		}
	}
	if gatewaytest.DefaultAnswer("one") == gatewaytest.DefaultAnswer("two") {
		t.Error("two questions get the same answer")
	}
	s := gatewaytest.New(t)
	resp, err := s.Client().Chat.Create(context.Background(), infergate.ChatRequest{
		Messages: []infergate.Message{infergate.UserMessage("What is up?")}})
	if err != nil || resp.Text() != `This is the fake gateway's answer to "What is up?": a real model would answer here.` {
		t.Errorf("unscripted answer = %v, %v", resp, err)
	}
}
