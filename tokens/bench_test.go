package tokens_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/tokens"
	"github.com/tiktoken-go/tokenizer"
)

// prose is a text of every kind the counter meets: English prose, code, JSON and other scripts.
var prose = strings.Repeat("The quick brown fox jumps over the lazy dog, twice: don't it? 1234567890\n"+
	"```go\nfunc main() { fmt.Println(\"hello, world\") }\n```\n"+
	`{"city":"Paris","temperature":21.5,"units":"celsius"}`+"\n"+
	"こんにちは世界。Привет, мир! مرحبا بالعالم 😀👍🏽\n", 20)

// conversation is a chat of a few turns with a tool call, about as long as prose.
func conversation() []infergate.Message {
	return []infergate.Message{
		infergate.SystemMessage("You are a helpful assistant. Answer briefly.\n" + prose[:len(prose)/4]),
		{Role: infergate.RoleUser, Name: "bob", Content: prose[len(prose)/4 : len(prose)/2]},
		{Role: infergate.RoleAssistant, ToolCalls: []infergate.ToolCall{{ID: "call_1", Type: "function",
			Function: infergate.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
		infergate.ToolResultMessage("call_1", `{"city":"Paris","temperature":21.5}`),
		infergate.UserMessageParts(infergate.TextPart(prose[len(prose)/2:]), infergate.ImageURLPart("https://example.com/cat.png")),
	}
}

// perThousand reports the time and allocations of one run per 1,000 tokens counted.
func perThousand(b *testing.B, tokensPerOp int, run func()) {
	b.Helper()
	run() // the codec is loaded before the clock starts; BenchmarkCodecLoad measures that
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for b.Loop() {
		run()
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	thousands := float64(b.N) * float64(tokensPerOp) / 1000
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/thousands, "ns/1ktok")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/thousands, "allocs/1ktok")
	b.ReportMetric(float64(tokensPerOp), "tok/op")
}

func BenchmarkCountText(b *testing.B) {
	n := tokens.CountText(prose)
	perThousand(b, n, func() { tokens.CountText(prose) })
}

// BenchmarkCountPrompt compares CountPrompt with the node's way, a codec built for every count
// (the baseline), on one conversation.
func BenchmarkCountPrompt(b *testing.B) {
	msgs := conversation()
	n := tokens.CountPrompt(msgs)
	b.Run("tokens", func(b *testing.B) {
		perThousand(b, n, func() { tokens.CountPrompt(msgs) })
	})
	b.Run("node", func(b *testing.B) {
		perThousand(b, n, func() { nodeWayCountPrompt(msgs) })
	})
}

// nodeWayCountPrompt counts as the node does, building a codec for every text.
func nodeWayCountPrompt(msgs []infergate.Message) int {
	count := func(s string) int {
		enc, err := tokenizer.Get(tokenizer.Cl100kBase)
		if err != nil {
			return (len(s) + 3) / 4
		}
		ids, _, _ := enc.Encode(s)
		return len(ids)
	}
	total := 0
	for _, m := range msgs {
		total++
		if len(m.Parts) > 0 {
			for _, p := range m.Parts {
				if p.Type == "text" {
					total += count(p.Text)
				}
			}
		} else {
			total += count(m.Content)
		}
		if m.Name != "" {
			total += count(m.Name)
		}
	}
	return total + 3*len(msgs)
}

// loadProbeEnv makes the test binary measure the codec's first load and exit: a vocabulary once
// loaded stays loaded, so each load is measured in a process of its own.
const loadProbeEnv = "INFERGATE_TOKENS_LOAD_PROBE"

// runLoadProbe prints the time, allocations and heap of the first count.
func runLoadProbe() int {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	tokens.CountText("hello world")
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	runtime.GC()
	var kept runtime.MemStats
	runtime.ReadMemStats(&kept)
	fmt.Println(elapsed.Nanoseconds(), after.Mallocs-before.Mallocs, int64(kept.HeapAlloc)-int64(before.HeapAlloc))
	return 0
}

// BenchmarkCodecLoad measures the first count of a process, which loads cl100k_base: time,
// allocations and the heap it keeps. ns/op, the process's start included, is not reported.
func BenchmarkCodecLoad(b *testing.B) {
	var ns, allocs, heap float64
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), loadProbeEnv+"=1")
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("probe: %v", err)
		}
		var n, a, h float64
		if _, err := fmt.Sscan(string(out), &n, &a, &h); err != nil {
			b.Fatalf("probe printed %q: %v", out, err)
		}
		ns, allocs, heap = ns+n, allocs+a, heap+h
	}
	runs := float64(b.N)
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(ns/runs, "load-ns/op")
	b.ReportMetric(allocs/runs, "load-allocs/op")
	b.ReportMetric(heap/runs, "load-heap-B/op")
}

// BenchmarkContextGuard is a Create on the fake gateway without WithContextGuard (the baseline)
// and with it, counting with CountPrompt; the catalogue is cached, as it is after a client's first
// guarded call. The root package's BenchmarkContextGuard counts with the default counter.
func BenchmarkContextGuard(b *testing.B) {
	gw := gatewaytest.NewServer(gatewaytest.WithModels(gatewaytest.CatalogModel{ID: "llama-3.3-70b", ContextLength: 131_072}))
	defer gw.Close()
	req := infergate.ChatRequest{Model: "llama-3.3-70b", Messages: guardedConversation(), MaxTokens: infergate.Ptr(1000)}
	for _, bc := range []struct {
		name string
		opts []infergate.Option
	}{
		{"off", nil},
		{"CountPrompt", []infergate.Option{infergate.WithContextGuard(), infergate.WithTokenCounter(tokens.CountPrompt)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			client := gw.Client(bc.opts...)
			ctx := context.Background()
			if _, err := client.Chat.Create(ctx, req); err != nil { // fills the catalogue's cache, loads the codec
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

// guardedConversation is the root package's benchmark conversation: a chat of a few turns, about
// 2,000 tokens, with a part list.
func guardedConversation() []infergate.Message {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog, twice: don't it? 1234567890\n", 25)
	return []infergate.Message{
		infergate.SystemMessage("You are a helpful assistant.\n" + text),
		infergate.UserMessage(text),
		infergate.AssistantMessage(text),
		infergate.UserMessageParts(infergate.TextPart(text), infergate.ImageURLPart("https://example.com/cat.png")),
	}
}
