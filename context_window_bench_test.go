package infergate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// guardedConversation is a chat of a few turns, about 2,000 tokens, with a part list.
func guardedConversation() []infergate.Message {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog, twice: don't it? 1234567890\n", 25)
	return []infergate.Message{
		infergate.SystemMessage("You are a helpful assistant.\n" + text),
		infergate.UserMessage(text),
		infergate.AssistantMessage(text),
		infergate.UserMessageParts(infergate.TextPart(text), infergate.ImageURLPart("https://example.com/cat.png")),
	}
}

// BenchmarkContextGuard is a Create on the fake gateway without the guard (the baseline) and
// with it, counting with the default counter; the catalogue is cached, as it is after a client's
// first guarded call. The tokens module's BenchmarkContextGuard counts with tokens.CountPrompt.
func BenchmarkContextGuard(b *testing.B) {
	gw := gatewaytest.NewServer(gatewaytest.WithModels(gatewaytest.CatalogModel{ID: "llama-3.3-70b", ContextLength: 131_072}))
	defer gw.Close()
	req := infergate.ChatRequest{Model: "llama-3.3-70b", Messages: guardedConversation(), MaxTokens: infergate.Ptr(1000)}
	for _, bc := range []struct {
		name string
		opts []infergate.Option
	}{
		{"off", nil},
		{"default", []infergate.Option{infergate.WithContextGuard()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			client := gw.Client(bc.opts...)
			ctx := context.Background()
			if _, err := client.Chat.Create(ctx, req); err != nil { // fills the catalogue's cache
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := client.Chat.Create(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
