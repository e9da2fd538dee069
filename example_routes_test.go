package infergate_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

func ExampleEmbeddingsService_Create() {
	gw := gatewaytest.NewServer()
	defer gw.Close()
	client := gw.Client()

	resp, err := client.Embeddings.Create(context.Background(), infergate.EmbeddingRequest{
		Model: "text-embedding-bge-m3",
		Input: []string{"The cat sat on the mat.", "A dog barked."},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range resp.Data {
		fmt.Printf("text %d: %d dimensions\n", e.Index, len(e.Embedding))
	}
	fmt.Println("tokens:", resp.Usage.TotalTokens)
	// Output:
	// text 0: 64 dimensions
	// text 1: 64 dimensions
	// tokens: 9
}

func ExampleEmbeddingsService_CreateMany() {
	gw := gatewaytest.NewServer()
	defer gw.Close()
	client := gw.Client()

	texts := make([]string, 5000) // more than one request may carry
	for i := range texts {
		texts[i] = fmt.Sprintf("passage number %d", i)
	}
	resp, err := client.Embeddings.CreateMany(context.Background(), infergate.EmbeddingRequest{
		Model: "text-embedding-bge-m3",
		Input: texts,
	})
	if err != nil {
		log.Fatal(err)
	}
	last := resp.Data[len(resp.Data)-1]
	fmt.Printf("%d vectors; the last is text %d's\n", len(resp.Data), last.Index)
	fmt.Println("requests:", len(gw.Requests()))
	fmt.Println("tokens:", resp.Usage.TotalTokens)
	// Output:
	// 5000 vectors; the last is text 4999's
	// requests: 3
	// tokens: 15000
}

func ExampleAudioService_Speak() {
	gw := gatewaytest.NewServer()
	defer gw.Close()
	client := gw.Client()

	audio, err := client.Audio.Speak(context.Background(), infergate.SpeechRequest{
		Input:          "Hello!",
		ResponseFormat: infergate.SpeechFormatWAV,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer audio.Close()
	header := make([]byte, 4)
	if _, err := audio.Read(header); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", header)
	// Output: RIFF
}

func ExampleAudioService_SpeakToFile() {
	gw := gatewaytest.NewServer()
	defer gw.Close()
	client := gw.Client()
	dir, err := os.MkdirTemp("", "speech")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	path := filepath.Join(dir, "hello.mp3")
	err = client.Audio.SpeakToFile(context.Background(), path, infergate.SpeechRequest{Input: "Hello!"})
	if err != nil {
		log.Fatal(err)
	}
	info, _ := os.Stat(path)
	fmt.Println(info.Size() > 0)
	// Output: true
}

func ExampleBillingService_Balance() {
	gw := gatewaytest.NewServer()
	defer gw.Close()
	client := gw.Client()

	b, err := client.Billing.Balance(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s available (paid %s + staking %s)\n", b.TotalAvailable, b.Paid.Available.Amount, b.Staking.Available.Amount)
	// Output: 32.375 USD available (paid 24.875 + staking 7.5)
}

func ExampleBillingService_Usage() {
	gw := gatewaytest.NewServer()
	defer gw.Close()
	gw.AddUsage(
		gatewaytest.UsageRecord{ID: "u1", CreatedAt: gatewaytest.FixedTime(), ModelName: "llama-3.3-70b", TotalTokens: 1200, AmountPaid: "0", AmountStake: "0.0012", AmountTotal: "0.0012"},
		gatewaytest.UsageRecord{ID: "u2", CreatedAt: gatewaytest.FixedTime(), ModelName: "bge-m3", TotalTokens: 300, AmountPaid: "0.0003", AmountStake: "0", AmountTotal: "0.0003"},
	)
	client := gw.Client()

	var total infergate.Money // the zero Money takes the currency of what is added to it
	for rec, err := range client.Billing.Usage(context.Background(), infergate.UsageFilter{}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-14s %5d tokens %s\n", rec.ModelName, rec.TotalTokens, rec.AmountTotal)
		if total, err = total.Add(rec.AmountTotal); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println("total:", total)
	// Output:
	// bge-m3           300 tokens 0.0003 USD
	// llama-3.3-70b   1200 tokens 0.0012 USD
	// total: 0.0015 USD
}

func ExampleBillingService_Transactions() {
	gw := gatewaytest.NewServer()
	defer gw.Close()
	gw.SetModelDown("qwen2.5-vl-72b", gatewaytest.OutageProviderError)
	client := gw.Client(infergate.WithMaxRetries(0))
	ctx := context.Background()
	for _, model := range []string{"llama-3.3-70b", "qwen2.5-vl-72b"} {
		req := infergate.ChatRequest{Model: model, Messages: []infergate.Message{infergate.UserMessage("Say hello to the ledger")}}
		_, _ = client.Chat.Create(ctx, req) // qwen2.5-vl-72b is down: its hold is voided
	}

	for e, err := range client.Billing.Transactions(ctx, infergate.TransactionFilter{}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s %-12s %-7s %-14s %d+%d tokens %s", e.CreatedAt.Format("Jan 2"), e.Type, e.Status, e.ModelName,
			e.InputTokens, e.OutputTokens, e.AmountTotal)
		if e.Prices != nil {
			fmt.Printf(" at %s/%s per million", e.Prices.Input.Amount, e.Prices.Output.Amount)
		}
		if e.FailureCode != "" {
			fmt.Printf(" (failed: %s)", e.FailureCode)
		}
		fmt.Println()
	}
	// Output:
	// Oct 15 usage_hold   voided  qwen2.5-vl-72b 5+0 tokens 0 USD (failed: 502)
	// Oct 15 usage_charge posted  llama-3.3-70b  5+18 tokens -0.000023 USD at 1/1 per million
}

func ExampleBillingService_Spending() {
	gw := gatewaytest.NewServer()
	defer gw.Close()
	at := func(month time.Month) time.Time { return time.Date(2026, month, 10, 9, 0, 0, 0, time.UTC) }
	gw.AddLedger(
		gatewaytest.LedgerEntry{Status: gatewaytest.StatusPosted, EntryType: gatewaytest.EntryUsageCharge, AmountTotal: "-1.25", CreatedAt: at(time.January)},
		gatewaytest.LedgerEntry{Status: gatewaytest.StatusPosted, EntryType: gatewaytest.EntryUsageCharge, AmountTotal: "-0.000125", CreatedAt: at(time.March)},
		gatewaytest.LedgerEntry{Status: gatewaytest.StatusPosted, EntryType: gatewaytest.EntryRefund, AmountTotal: "0.25", CreatedAt: at(time.March)},
	)
	client := gw.Client()

	for _, mode := range []infergate.SpendingMode{infergate.SpendingGross, infergate.SpendingNet} {
		s, err := client.Billing.Spending(context.Background(), 2026, mode)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %s in %d (January %s, March %s)\n", s.Mode, s.Total, s.Year, s.Months[0].Amount, s.Months[2].Amount)
	}
	// Output:
	// gross: -1.250125 USD in 2026 (January -1.25 USD, March -0.000125 USD)
	// net: -1.000125 USD in 2026 (January -1.25 USD, March 0.249875 USD)
}

func ExampleKeysService() {
	gw := gatewaytest.NewServer()
	defer gw.Close()
	// The key routes take the access token (WithAccessToken), never the API key.
	client := gw.Client(infergate.WithAccessToken(gatewaytest.DefaultAccessToken))
	ctx := context.Background()

	created, err := client.Keys.Create(ctx, "ci")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(created) // printing never shows the key itself
	keys, err := client.Keys.List(ctx)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.Keys.SetDefault(ctx, keys[0].ID); err != nil {
		log.Fatal(err)
	}
	def, err := client.Keys.Default(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(def.Name, def.IsDefault)
	// Output:
	// infergate.CreatedAPIKey{KeyPrefix: "sk-a2f5c6", Name: "ci", Key: [redacted]}
	// ci true
}

func ExampleHealthService_Check() {
	gw := gatewaytest.NewServer()
	defer gw.Close()
	// GET /health needs no credential.
	client, err := infergate.NewClient(infergate.WithBaseURL(gw.URL()), infergate.WithAPIKey(""))
	if err != nil {
		log.Fatal(err)
	}

	h, err := client.Health.Check(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(h.Status, h.Healthy(), h.ModelService.ModelCount, "models")
	// Output: ok true 6 models
}
