package main

import (
	"testing"
	"time"
)

func TestTextHelpers(t *testing.T) {
	t.Parallel()
	for in, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 200 << 20: "200.0 MiB", 3 << 30: "3.0 GiB"} {
		if got := bytesText(in); got != want {
			t.Errorf("bytesText(%d) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[time.Duration]string{time.Hour: "1h", 30 * time.Minute: "30m", 90 * time.Minute: "1h30m", 90 * time.Second: "1m30s", 5 * time.Second: "5s"} {
		if got := durationText(in); got != want {
			t.Errorf("durationText(%v) = %q, want %q", in, got, want)
		}
	}
	if got := short("0xa48363ce8799942e826f09c364525ff80d1182a6f217db54bf6a186b4b792c95"); got != "0xa48363…2c95" {
		t.Errorf("short = %q", got)
	}
	if got := oneLine("bad\n  request\t here "); got != "bad request here" {
		t.Errorf("oneLine = %q", got)
	}
}
