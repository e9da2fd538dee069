package main

import (
	"strings"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/batch"
)

func TestProgressText(t *testing.T) {
	t.Parallel()
	amount, err := infergate.ParseDecimal("0.0421")
	if err != nil {
		t.Fatal(err)
	}
	cost := &infergate.Money{Amount: amount, Currency: infergate.CurrencyUSD}
	paused := time.Date(2025, 10, 15, 12, 0, 30, 0, time.UTC)
	tests := []struct {
		p    batch.Progress
		want string
	}{
		{batch.Progress{Total: 10}, "0/10 0%  0 tokens"},
		{batch.Progress{Total: 0}, "0/0 100%  0 tokens"},
		{batch.Progress{Total: 10, Succeeded: 1, Sent: 1, InFlight: 2, Elapsed: time.Second, Usage: infergate.Usage{TotalTokens: 30}},
			"1/10 10%  2 in flight  1.0/s  ETA 9s  30 tokens"},
		{batch.Progress{Total: 1000, Succeeded: 310, Failed: 2, Resumed: 100, Sent: 212, Elapsed: 5 * time.Second,
			Usage: infergate.Usage{TotalTokens: 123456}, Cost: cost, Unpriced: 3},
			"312/1000 31%  2 failed  42.4/s  ETA 16s  123456 tokens  0.0421 USD (3 unpriced)"},
		{batch.Progress{Total: 100, Succeeded: 100, Resumed: 100}, "100/100 100%  0 tokens"},
		{batch.Progress{Total: 4, Succeeded: 2, Sent: 2, Elapsed: 2 * time.Second, PausedUntil: paused},
			"2/4 50%  1.0/s  ETA 2s  paused by the gateway (429) until 12:00:30  0 tokens"},
	}
	for _, tt := range tests {
		if got := progressText(tt.p); got != tt.want {
			t.Errorf("progressText(%+v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}

// TestBatchBar drives the bar with a clock that moves only when told: it redraws at most every
// redrawEvery, always the first time and when the last result is in, and leaves the screen for
// the notice of a Ctrl-C and for the summary.
func TestBatchBar(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	now := time.Date(2025, 10, 15, 12, 0, 0, 0, time.UTC)
	bar := newBatchStatus(&out, func() time.Time { return now }, true)
	step := func(d time.Duration, done int) {
		now = now.Add(d)
		bar.update(batch.Progress{Total: 4, Succeeded: done, Sent: done, Elapsed: time.Duration(done) * time.Second})
	}
	step(time.Second, 1)
	step(time.Millisecond, 2) // too soon: not drawn
	step(redrawEvery, 3)
	bar.stopping(5 * time.Second)
	bar.stopping(5 * time.Second) // said once
	step(time.Millisecond, 4)     // the last: drawn however soon
	bar.done()
	want := "\r\033[K1/4 25%  1.0/s  ETA 3s  0 tokens" +
		"\r\033[K3/4 75%  1.0/s  ETA 1s  0 tokens" +
		"\r\033[Kbatch: stopping: nothing more is sent; the requests in flight have 5s to finish (Ctrl-C again quits at once)\n" +
		"\r\033[K4/4 100%  1.0/s  0 tokens" +
		"\r\033[K"
	if got := out.String(); got != want {
		t.Errorf("bar drew\n%q\nwant\n%q", got, want)
	}
}

// TestBatchStatusOffATerminal: a plain line every statusEvery, counted from the start, and
// nothing that redraws.
func TestBatchStatusOffATerminal(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	now := time.Date(2025, 10, 15, 12, 0, 0, 0, time.UTC)
	status := newBatchStatus(&out, func() time.Time { return now }, false)
	for done := 1; done <= 4; done++ {
		now = now.Add(2 * time.Second)
		status.update(batch.Progress{Total: 4, Succeeded: done, Sent: done, Elapsed: time.Duration(done) * 2 * time.Second})
	}
	status.done()
	want := "batch: 3/4 75%  0.5/s  ETA 2s  0 tokens\n"
	if got := out.String(); got != want {
		t.Errorf("status wrote %q, want %q", got, want)
	}
}
