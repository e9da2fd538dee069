package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/infergate/infergate-go/batch"
)

// statusEvery is how often a batch's progress is written when stderr is not a terminal (a log, a
// CI job): a line each time, rather than a bar redrawn.
const statusEvery = 5 * time.Second

// batchStatus shows a batch's progress on stderr: on a terminal, one line redrawn at most every
// redrawEvery; elsewhere, a line every statusEvery. Run calls update, never concurrently, but
// the notice of a Ctrl-C comes from another goroutine.
type batchStatus struct {
	w        io.Writer
	now      func() time.Time
	terminal bool

	mu     sync.Mutex
	drawn  time.Time // when the last line was written (a plain line: the start, at first)
	shown  bool      // a bar is on the screen
	ending bool      // the run was interrupted and waits for the requests in flight
}

func newBatchStatus(w io.Writer, now func() time.Time, terminal bool) *batchStatus {
	return &batchStatus{w: w, now: now, terminal: terminal, drawn: now()}
}

func (s *batchStatus) update(p batch.Progress) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if !s.terminal {
		if now.Sub(s.drawn) >= statusEvery {
			s.drawn = now
			fmt.Fprintf(s.w, "batch: %s\n", progressText(p))
		}
		return
	}
	finished := p.Succeeded+p.Failed >= p.Total
	if s.shown && !finished && now.Sub(s.drawn) < redrawEvery {
		return
	}
	s.drawn = now
	io.WriteString(exact(s.w), clearLine)
	io.WriteString(s.w, progressText(p))
	s.shown = true
}

// stopping says, once, that a Ctrl-C stopped the sending.
func (s *batchStatus) stopping(grace time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ending {
		return
	}
	s.ending = true
	s.clear()
	fmt.Fprintf(s.w, "batch: stopping: nothing more is sent; the requests in flight have %v to finish (Ctrl-C again quits at once)\n", grace)
}

// done takes the bar off the screen, leaving the line for the summary.
func (s *batchStatus) done() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clear()
}

func (s *batchStatus) clear() {
	if s.shown {
		io.WriteString(exact(s.w), clearLine)
		s.shown = false
	}
}

// summary writes how the run ended, and what to do next.
func (s *batchStatus) summary(sum *batch.Summary, shard batch.Shard, output string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	of := ""
	if shard != (batch.Shard{}) {
		of = " of shard " + shard.String()
	}
	fmt.Fprintf(s.w, "batch: %s\n", summaryText(sum, of))
	switch left := sum.Total - sum.Succeeded - sum.Failed; {
	case sum.Interrupted:
		fmt.Fprintf(s.w, "batch: interrupted with %d requests without a result: run the same command again to resume into %s\n", left, output)
	case sum.Failed > 0:
		fmt.Fprintf(s.w, "batch: %d failed: their results in %s say why; --retry-failed sends them again\n", sum.Failed, output)
	case left > 0:
		fmt.Fprintf(s.w, "batch: %d requests without a result: run the same command again to send them\n", left)
	}
}

// progressText is a run's state in one line: "312/1000 31%  2 failed  41.3/s  ETA 16s  123456 tokens  $0.0421".
func progressText(p batch.Progress) string {
	done := p.Succeeded + p.Failed
	parts := []string{fmt.Sprintf("%d/%d %s", done, p.Total, percent(done, p.Total))}
	if p.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", p.Failed))
	}
	if p.InFlight > 0 {
		parts = append(parts, fmt.Sprintf("%d in flight", p.InFlight))
	}
	if doneHere := done - p.Resumed; doneHere > 0 && p.Elapsed > 0 {
		rate := float64(doneHere) / p.Elapsed.Seconds()
		parts = append(parts, fmt.Sprintf("%.1f/s", rate))
		if left := p.Total - done; left > 0 {
			eta := time.Duration(float64(left) / rate * float64(time.Second))
			parts = append(parts, "ETA "+eta.Round(time.Second).String())
		}
	}
	if !p.PausedUntil.IsZero() {
		parts = append(parts, "paused by the gateway (429) until "+p.PausedUntil.Format(time.TimeOnly))
	}
	parts = append(parts, usageText(p))
	return strings.Join(parts, "  ")
}

// usageText is the tokens and the cost of the answers so far.
func usageText(p batch.Progress) string {
	text := fmt.Sprintf("%d tokens", p.Usage.TotalTokens)
	if p.Cost != nil {
		text += "  " + p.Cost.String()
		if p.Unpriced > 0 {
			text += fmt.Sprintf(" (%d unpriced)", p.Unpriced)
		}
	}
	return text
}

func percent(n, total int) string {
	if total == 0 {
		return "100%"
	}
	return fmt.Sprintf("%d%%", n*100/total)
}

// summaryText is the end of a run: "300 requests: 297 succeeded, 3 failed (120 found in the
// output, 180 sent) in 4.2s; 12345 tokens  0.0421 USD"; of says which part of the file, if not all.
func summaryText(s *batch.Summary, of string) string {
	return fmt.Sprintf("%d requests%s: %d succeeded, %d failed (%d found in the output, %d sent) in %v; %s",
		s.Total, of, s.Succeeded, s.Failed, s.Resumed, s.Sent, s.Elapsed.Round(100*time.Millisecond), usageText(s.Progress))
}
