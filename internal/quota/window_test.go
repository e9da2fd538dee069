package quota

import (
	"testing"
	"time"
)

func TestWindowAligned(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 7, 23, 13, 37, 12, 500_000_000, time.UTC)
	w := WindowAt(at, time.Minute)
	if want := time.Date(2026, 7, 23, 13, 37, 0, 0, time.UTC); !w.Start.Equal(want) {
		t.Errorf("start %v, want %v", w.Start, want)
	}
	if got := FormatReset(w.Reset); got != "2026-07-23T13:38:00+00:00" {
		t.Errorf("reset %s", got)
	}
	if got := w.RetryAfter(at); got != 48 { // 13:38:00 − 13:37:12
		t.Errorf("retry after %d, want 48", got)
	}
	if got := WindowAt(at, 0); got != w {
		t.Errorf("a zero length is not a minute: %v", got)
	}
	if got := FormatReset(time.Unix(1, 500).In(time.FixedZone("x", 3600))); got != "1970-01-01T00:00:01+00:00" {
		t.Errorf("sub-microsecond: %s", got)
	}
	if got := FormatReset(time.Unix(1, 1500_000)); got != "1970-01-01T00:00:01.001500+00:00" {
		t.Errorf("microseconds: %s", got)
	}
}

// Every instant lies in its window, the windows of one length tile time from the epoch, and the
// wait told is the gateway's reset − ⌊now⌋, from 1 to the length.
func TestWindowProperties(t *testing.T) {
	t.Parallel()
	for _, length := range []time.Duration{time.Second, 2 * time.Second, time.Minute, time.Hour} {
		secs := int64(length / time.Second)
		for ns := int64(-3e9); ns < 200e9; ns += 333_333_337 {
			now := time.Unix(0, ns+1_785_000_000e9)
			w := WindowAt(now, length)
			if now.Before(w.Start) || !now.Before(w.Reset) || w.Reset.Sub(w.Start) != length {
				t.Fatalf("%v not in [%v, %v)", now, w.Start, w.Reset)
			}
			if w.Start.UnixNano()%int64(length) != 0 {
				t.Fatalf("start %v not aligned on %v", w.Start, length)
			}
			ra := w.RetryAfter(now)
			if want := w.Reset.Unix() - now.Unix(); int64(ra) != want || ra < 1 || int64(ra) > secs {
				t.Fatalf("retry after %d at %v, want %d in 1..%d", ra, now, want, secs)
			}
		}
	}
}
