package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/infergate/infergate-go/gatewaytest"
)

// TestBadFlagValuesExitTwo: a flag given a value it cannot take is a wrong command line, whatever
// checks it (the flag package, the command or the SDK): exit status 2, one line naming the flag
// and pointing to the help, and nothing sent.
func TestBadFlagValuesExitTwo(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "hello.mp3")
	tests := []struct {
		args []string
		flag string // what the error line names
	}{
		{[]string{"models", "--base-url", "ftp://nowhere"}, "--base-url"},
		{[]string{"health", "--base-url", "http://"}, "--base-url"},
		{[]string{"balance", "--base-url", "::no scheme"}, "--base-url"},
		{[]string{"chat", "--base-url", "https://user:secret@example.com", "hi"}, "--base-url"},
		{[]string{"speak", "--speed", "9", "Hello.", "-o", out}, "--speed"},
		{[]string{"speak", "--speed", "0", "Hello.", "-o", out}, "--speed"},
		{[]string{"speak", "--speed", "NaN", "Hello.", "-o", out}, "--speed"},
		{[]string{"speak", "--speed", "+Inf", "Hello.", "-o", out}, "--speed"},
		{[]string{"speak", "--speed", "fast", "Hello.", "-o", out}, "-speed"},
		{[]string{"speak", "--format", "midi", "Hello."}, "midi"},
		{[]string{"usage", "--month", "0000-01"}, "--month"},
		{[]string{"usage", "--month", "2025-13"}, "--month"},
		{[]string{"bids", "llama-3.3-70b", "--duration", "0s"}, "--duration"},
		{[]string{"bids", "llama-3.3-70b", "--duration", "soon"}, "-duration"},
		{[]string{"models", "--type", "image"}, "--type"},
		{[]string{"models", "--json=maybe"}, "-json"},
		{[]string{"transcribe", "--format", "doc", "https://example.com/a.mp3"}, "--format"},
		{[]string{"batch", "in.jsonl"}, "-o"},
		{[]string{"batch", "in.jsonl", "-o", out, "--shard", "2/2"}, "--shard"},
		{[]string{"batch", "in.jsonl", "-o", out, "--shard", "-1/2"}, "--shard"},
		{[]string{"batch", "in.jsonl", "-o", out, "--shard", "half"}, "--shard"},
		{[]string{"batch", "in.jsonl", "-o", out, "--concurrency", "0"}, "--concurrency"},
		{[]string{"batch", "in.jsonl", "-o", out, "--concurrency", "-3"}, "--concurrency"},
		{[]string{"batch", "in.jsonl", "-o", out, "--concurrency", "many"}, "-concurrency"},
		{[]string{"batch", "in.jsonl", "-o", out, "--cooldown", "-1s"}, "--cooldown"},
		{[]string{"batch", "in.jsonl", "-o", out, "--redis", "http://localhost:6379"}, "--redis"},
		{[]string{"batch", "in.jsonl", "-o", out, "--redis", "redis://:secret@localhost:99999"}, "--redis"},
		{[]string{"batch", "in.jsonl", "-o", out, "--quotas", filepath.Join(filepath.Dir(out), "none.json")}, "--quotas"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			r := c.run(context.Background(), tt.args...)
			cmd := tt.args[0]
			if r.code != exitUsage || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 ||
				!strings.HasPrefix(r.stderr, "infergate "+cmd+": ") || !strings.Contains(r.stderr, tt.flag) ||
				!strings.HasSuffix(r.stderr, "(see infergate "+cmd+" --help)\n") {
				t.Errorf("status %d, stdout %q, stderr %q; want status 2 and one line naming %s", r.code, r.stdout, r.stderr, tt.flag)
			}
			if strings.Contains(r.stderr, "secret") {
				t.Errorf("stderr %q shows the URL's credentials", r.stderr)
			}
			if n := len(c.srv.Requests()); n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
		})
	}
}

// TestBaseURLFromTheEnvironmentIsNotACommandLineError: an address that cannot work, read from
// INFERGATE_BASE_URL, is not the command line's fault: exit status 1.
func TestBaseURLFromTheEnvironmentIsNotACommandLineError(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.env["INFERGATE_BASE_URL"] = "ftp://nowhere"
	r := c.run(context.Background(), "models")
	if r.code != exitFailed || !strings.Contains(r.stderr, `"ftp://nowhere" must start with https:// or http://`) {
		t.Errorf("models with a bad INFERGATE_BASE_URL = %+v, want status 1 and the SDK's reason", r)
	}
}

// TestMistypedCommandSuggestsTheNearest: a command line whose command is a slip of a real one
// names it; a word far from every command is only refused.
func TestMistypedCommandSuggestsTheNearest(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"modles": "models", "model": "models", "Models": "models", "bid": "bids", "chta": "chat",
		"transcibe": "transcribe", "trascribe": "transcribe", "speek": "speak", "embedd": "embed",
		"balanse": "balance", "usgae": "usage", "helth": "health", "trans": "transcribe", "xyzzy": "", "b": "", "deploy": "",
	}
	for typed, want := range tests {
		for _, args := range [][]string{{typed}, {"help", typed}} {
			c := newCLI(t)
			r := c.run(context.Background(), args...)
			suggested := strings.Contains(r.stderr, "did you mean")
			if r.code != exitUsage || !strings.Contains(r.stderr, "unknown command "+`"`+typed+`"`) ||
				suggested != (want != "") || (want != "" && !strings.Contains(r.stderr, "did you mean infergate "+want+"?")) {
				t.Errorf("infergate %s: status %d, stderr %q; want status 2 suggesting %q", strings.Join(args, " "), r.code, r.stderr, want)
			}
		}
	}
}

// TestModelsAndBidsNameTheBlockchainIDAlike: the model's blockchain id has one key in the JSON of
// models, bids and usage, the SDK's own (RatedBid and UsageRecord marshal it as model_id), so that
// a script joins them on it.
func TestModelsAndBidsNameTheBlockchainIDAlike(t *testing.T) {
	t.Parallel()
	c := newCLI(t, gatewaytest.WithContractBids())
	var models []map[string]any
	r := c.run(context.Background(), "models", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &models); err != nil || len(models) == 0 {
		t.Fatalf("models --json = %+v: %v", r, err)
	}
	var bids []struct {
		Bid map[string]any `json:"bid"`
	}
	r = c.run(context.Background(), "bids", "--json", "llama-3.3-70b")
	if err := json.Unmarshal([]byte(r.stdout), &bids); err != nil || len(bids) == 0 {
		t.Fatalf("bids --json = %+v: %v", r, err)
	}
	var llama map[string]any
	for _, m := range models {
		if m["id"] == "llama-3.3-70b" {
			llama = m
		}
	}
	if llama["id"] != "llama-3.3-70b" || llama["model_id"] != gatewaytest.HexID("llama-3.3-70b") || llama["blockchain_id"] != nil {
		t.Errorf("models --json's llama-3.3-70b = %v, want its blockchain id as model_id", llama)
	}
	for _, b := range bids {
		if b.Bid["model_id"] != llama["model_id"] {
			t.Errorf("bids --json's bid = %v, want model_id %v", b.Bid, llama["model_id"])
		}
	}
}

// TestBidsJSONPriceIsTheWiresDecimal: a bid's price_per_second in bids --json has the shape the
// SDK's RatedBid gives it in JSON: a decimal string in MOR, not a Money object.
func TestBidsJSONPriceIsTheWiresDecimal(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.run(context.Background(), "bids", "--json", "llama-3.3-70b")
	var bids []struct {
		Bid struct {
			PricePerSecond json.RawMessage `json:"price_per_second"`
		} `json:"bid"`
		Cost json.RawMessage `json:"cost"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &bids); err != nil || len(bids) == 0 {
		t.Fatalf("bids --json = %+v: %v", r, err)
	}
	client := c.srv.Client()
	want, err := client.Bids.Rated(context.Background(), "llama-3.3-70b")
	if err != nil {
		t.Fatal(err)
	}
	prices := map[string]bool{}
	for _, b := range want {
		prices[`"`+b.PricePerSecond.Amount.String()+`"`] = true
	}
	for _, b := range bids {
		if !prices[string(b.Bid.PricePerSecond)] {
			t.Errorf("price_per_second = %s, want one of the bids' decimal strings %v", b.Bid.PricePerSecond, prices)
		}
		var cost struct{ Amount, Currency string }
		if err := json.Unmarshal(b.Cost, &cost); err != nil || cost.Currency != "MOR" {
			t.Errorf("cost = %s (%v), want a Money in MOR", b.Cost, err)
		}
	}
}
