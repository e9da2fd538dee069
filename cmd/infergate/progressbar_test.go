package main

import (
	"strings"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
)

func TestProgressLine(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	tests := []struct {
		p       infergate.UploadProgress
		elapsed time.Duration
		want    string
	}{
		{infergate.UploadProgress{Attempt: 1, Sent: 0, Total: 200 * mib}, 0, "a.mp3  0 B / 200.0 MiB  0%"},
		{infergate.UploadProgress{Attempt: 1, Sent: 12 * mib, Total: 200 * mib}, 3 * time.Second, "a.mp3  12.0 MiB / 200.0 MiB  6%  4.0 MiB/s  47s left"},
		{infergate.UploadProgress{Attempt: 1, Sent: 200 * mib, Total: 200 * mib}, 50 * time.Second, "a.mp3  200.0 MiB / 200.0 MiB  100%  4.0 MiB/s"},
		{infergate.UploadProgress{Attempt: 1, Sent: 3 * 1024, Total: -1}, time.Second, "a.mp3  3.0 KiB  3.0 KiB/s"},
		{infergate.UploadProgress{Attempt: 1, Sent: 0, Total: 0}, time.Second, "a.mp3  0 B / 0 B"},
	}
	for _, tt := range tests {
		if got := progressLine("a.mp3", tt.p, tt.elapsed); got != tt.want {
			t.Errorf("progressLine(%+v, %v) = %q, want %q", tt.p, tt.elapsed, got, tt.want)
		}
	}
}

// TestUploadBar drives the bar with a clock that moves only when told: it redraws at most every
// redrawEvery, always at the start and the end, and says when a retry starts the upload again.
func TestUploadBar(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	now := time.Date(2025, 10, 15, 12, 0, 0, 0, time.UTC)
	bar := &uploadBar{w: &out, name: "a.wav", now: func() time.Time { return now }}
	step := func(d time.Duration, p infergate.UploadProgress) {
		now = now.Add(d)
		bar.update(p)
	}
	step(0, infergate.UploadProgress{Attempt: 1, Sent: 0, Total: 4096})
	step(time.Millisecond, infergate.UploadProgress{Attempt: 1, Sent: 1024, Total: 4096}) // too soon: not drawn
	step(redrawEvery, infergate.UploadProgress{Attempt: 1, Sent: 2048, Total: 4096})
	step(0, infergate.UploadProgress{Attempt: 2, Sent: 0, Total: 4096})
	step(time.Second, infergate.UploadProgress{Attempt: 2, Sent: 4096, Total: 4096})
	bar.done()
	want := "\r\033[Ka.wav  0 B / 4.0 KiB  0%" +
		"\r\033[Ka.wav  2.0 KiB / 4.0 KiB  50%  19.8 KiB/s  0s left" +
		"\r\033[Kupload failed, sending a.wav again (attempt 2)\n" +
		"\r\033[Ka.wav  0 B / 4.0 KiB  0%" +
		"\r\033[Ka.wav  4.0 KiB / 4.0 KiB  100%  4.0 KiB/s" +
		"\r\033[K"
	if got := out.String(); got != want {
		t.Errorf("bar drew\n%q\nwant\n%q", got, want)
	}
}
