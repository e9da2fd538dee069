package quota

import (
	"fmt"
	"time"
)

// Window is one fixed window of a rate limit.
type Window struct {
	Start, Reset time.Time
}

// WindowAt returns the window of the given length that holds now: windows are aligned on the Unix
// epoch, so one starts at now/length*length. A length of 0 or less is one minute.
func WindowAt(now time.Time, length time.Duration) Window {
	if length <= 0 {
		length = time.Minute
	}
	since := now.Sub(time.Unix(0, 0))
	offset := since % length
	if offset < 0 {
		offset += length
	}
	start := now.Add(-offset)
	return Window{Start: start, Reset: start.Add(length)}
}

// RetryAfter is how many whole seconds a request refused at now is told to wait: those left until
// the reset, at least 1. With whole-second windows it is the gateway's reset − ⌊now⌋, from 1 to the
// window's length.
func (w Window) RetryAfter(now time.Time) int {
	left := w.Reset.Sub(now)
	return max(int((left+time.Second-1)/time.Second), 1)
}

// FormatReset writes t as the gateway's reset headers do, Python's isoformat() of a UTC datetime:
// 2026-07-23T13:38:00+00:00, with microseconds only when t has some.
func FormatReset(t time.Time) string {
	t = t.UTC()
	s := t.Format("2006-01-02T15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	return s + "+00:00"
}
