package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// syncEvery is how often the output is synced to disk while results come. Each result is one
// write(2) of its whole line, which the kernel keeps once it returns: a process killed at any
// point (SIGKILL included) loses no written result, and leaves at most one torn line, the last.
// Only a machine that stops (power, kernel panic) can lose what was written since the last sync;
// those requests are sent again by the next run, with the same Idempotency-Key. A sync per line
// would bound a run by the disk's flush rate (hundreds a second on many disks).
const syncEvery = time.Second

// write appends the answers to the output as they come, one line each, and reports progress. It
// is the only goroutine that writes the output or calls job.Progress.
func (r *runner) write(answers <-chan answer, stop context.CancelFunc) {
	tick := time.NewTicker(ProgressEvery)
	defer tick.Stop()
	broken := false
	for {
		select {
		case a, ok := <-answers:
			if !ok {
				r.report()
				return
			}
			if broken {
				continue // the run is stopping: what is in flight finishes, unwritten
			}
			if err := r.append(&a.result); err != nil {
				broken = true
				r.fail(err, stop)
				continue
			}
			r.count(&a)
			r.report()
		case <-tick.C:
			r.report()
		}
	}
}

// append writes one result as one line, with one write, so that a crash cannot leave half of it
// between two whole lines.
func (r *runner) append(res *Result) error {
	line, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("batch: encoding the result of %q: %w", res.CustomID, err)
	}
	line = append(line, '\n')
	if _, err := r.out.Write(line); err != nil {
		return fmt.Errorf("batch: output: %w", err)
	}
	if now := time.Now(); now.Sub(r.lastSync) >= syncEvery {
		r.lastSync = now
		if err := r.out.Sync(); err != nil {
			return fmt.Errorf("batch: output: %w", err)
		}
	}
	return nil
}

// count adds a written result to the run's progress. Cost sums in the currency of the first
// priced answer; an answer priced in another currency, like one with usage and no price, is
// counted in Unpriced.
func (r *runner) count(a *answer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := &r.progress
	if a.result.Succeeded() {
		p.Succeeded++
	} else {
		p.Failed++
	}
	if a.usage != nil {
		p.Usage = p.Usage.Add(*a.usage)
	}
	switch {
	case a.cost == nil:
		if a.usage != nil {
			p.Unpriced++
		}
	case p.Cost == nil:
		c := *a.cost
		p.Cost = &c
	default:
		sum, err := p.Cost.Add(*a.cost)
		if err != nil {
			p.Unpriced++
		} else {
			p.Cost = &sum
		}
	}
}

// snapshot is the run's progress now.
func (r *runner) snapshot() Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.progress
	now := time.Now()
	p.Elapsed = now.Sub(r.start)
	if r.paused.After(now) {
		p.PausedUntil = r.paused
	}
	return p
}

func (r *runner) report() {
	if r.job.Progress != nil {
		r.job.Progress(r.snapshot())
	}
}
