package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	infergate "github.com/infergate/infergate-go"
)

// uploadBar draws an upload's progress on one terminal line: bytes sent, rate and time left. It
// is given to TranscriptionRequest.Progress, so it is called from the goroutine that sends the
// body, and redraws at most every redrawEvery.
type uploadBar struct {
	w    io.Writer
	name string
	now  func() time.Time

	mu      sync.Mutex
	attempt int
	start   time.Time // when the current attempt began
	drawn   time.Time // when the line was last drawn
	shown   bool      // a line is on the screen
}

const redrawEvery = 100 * time.Millisecond

// clearLine takes the cursor back to the start of the line and erases the line.
const clearLine = "\r\033[K"

func (b *uploadBar) update(p infergate.UploadProgress) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if p.Attempt != b.attempt {
		if b.attempt != 0 {
			b.clear()
			fmt.Fprintf(b.w, "upload failed, sending %s again (attempt %d)\n", b.name, p.Attempt)
		}
		b.attempt, b.start = p.Attempt, now
	}
	if p.Sent != 0 && p.Sent != p.Total && now.Sub(b.drawn) < redrawEvery {
		return
	}
	b.drawn = now
	io.WriteString(exact(b.w), clearLine)
	io.WriteString(b.w, progressLine(b.name, p, now.Sub(b.start)))
	b.shown = true
}

// done takes the bar off the screen, leaving the line for what follows.
func (b *uploadBar) done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.clear()
}

func (b *uploadBar) clear() {
	if b.shown {
		io.WriteString(exact(b.w), clearLine)
		b.shown = false
	}
}

// progressLine is the text of the bar: "meeting.mp3  12.0 MiB / 200.0 MiB  6%  4.0 MiB/s  47s left".
func progressLine(name string, p infergate.UploadProgress, elapsed time.Duration) string {
	line := name + "  " + bytesText(p.Sent)
	if p.Total >= 0 {
		line += " / " + bytesText(p.Total)
		if p.Total > 0 {
			line += fmt.Sprintf("  %d%%", p.Sent*100/p.Total)
		}
	}
	if elapsed <= 0 || p.Sent == 0 {
		return line
	}
	rate := float64(p.Sent) / elapsed.Seconds()
	line += "  " + bytesText(int64(rate)) + "/s"
	if p.Total > 0 && p.Sent < p.Total {
		left := time.Duration(float64(p.Total-p.Sent) / rate * float64(time.Second))
		line += "  " + left.Round(time.Second).String() + " left"
	}
	return line
}
