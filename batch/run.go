package batch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	infergate "github.com/infergate/infergate-go"
)

// Run sends the requests of job.Input that have no result in job.Output (and, with RetryFailed,
// those whose result failed) through client, appending each result to job.Output as it comes. It
// first checks the whole input: a bad line (malformed JSON, a duplicate custom_id, an unknown url or
// method, a body the SDK's validation refuses) is an *InputError and nothing is sent, nor the
// output touched. An output line other than the last that is not a result is an *OutputError.
//
// The summary is returned with a nil error when the run went through its requests, whatever their
// results; with ctx's error when ctx ended (Summary.Interrupted), once the requests in flight have
// finished or job.Grace has passed. A request cut off by the end of the grace period gets no
// result: the next run sends it again, with the same Idempotency-Key. A run that cannot go on (the
// output cannot be written, the input changed since it was checked) stops sending and returns the
// summary so far with that error; its output is resumable too.
//
// The output may not be the input, under any name (a link to it included).
//
// A 429 that reaches Run, after the client's own retries, pauses the whole run until its
// Retry-After (a second when it gives none; Progress.PausedUntil) and then sends the request again;
// once a request has paused the run MaxRateLimitPauses times, its next 429 is its result.
func Run(ctx context.Context, client *infergate.Client, job Job) (*Summary, error) {
	start := time.Now()
	if client == nil {
		return nil, errors.New("batch: no client")
	}
	if err := job.check(); err != nil {
		return nil, err
	}
	h := newHasher()
	in, err := checkInput(job.Input, h, job.Shard)
	if err != nil {
		return nil, err
	}
	lock, err := lockOutput(job.Output)
	if err != nil {
		return nil, err
	}
	defer func() { lock.Close() }()
	out, err := readOutput(job.Output, h, &in.ids, job.Shard)
	if err != nil {
		return nil, err
	}
	if job.RetryFailed && out.failed > 0 {
		var relocked *os.File
		if relocked, err = dropFailed(job.Output, h, &in.ids, job.Shard); err == nil {
			lock.Close()
			lock = relocked
		}
		for i, s := range in.ids.state {
			if s == failed {
				in.ids.state[i] = pending
			}
		}
		out.failed = 0
	} else {
		err = repair(job.Output, out)
	}
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(job.Output, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("batch: output: %w", err)
	}
	r := &runner{client: client, job: job, h: h, ids: &in.ids, out: f, start: start, lastSync: start}
	r.progress = Progress{Total: in.total, Succeeded: out.succeeded, Failed: out.failed,
		Resumed: out.succeeded + out.failed}
	return r.run(ctx)
}

// MaxRateLimitPauses is how many times a run pauses for one request's 429s; the next 429 is its
// result.
const MaxRateLimitPauses = 8

// defaultPause is the pause after a 429 that gives no Retry-After.
const defaultPause = time.Second

func (j *Job) check() error {
	switch {
	case j.Input == "" || j.Output == "":
		return errors.New("batch: the job needs an input and an output file")
	case j.Concurrency < 0:
		return fmt.Errorf("batch: concurrency %d: want 0 (the default) or more", j.Concurrency)
	case j.Grace < 0:
		return fmt.Errorf("batch: grace %v: want 0 (the default) or more", j.Grace)
	}
	if err := j.Shard.check(); err != nil {
		return err
	}
	in, errIn := filepath.Abs(j.Input)
	out, errOut := filepath.Abs(j.Output)
	if errIn == nil && errOut == nil && in == out {
		return errOutputIsInput
	}
	// A link names the input as another path: the run would append its results to the input.
	if inInfo, err := os.Stat(j.Input); err == nil {
		if outInfo, err := os.Stat(j.Output); err == nil && os.SameFile(inInfo, outInfo) {
			return errOutputIsInput
		}
	}
	if j.Concurrency == 0 {
		j.Concurrency = DefaultConcurrency
	}
	if j.Grace == 0 {
		j.Grace = DefaultGrace
	}
	return nil
}

var errOutputIsInput = errors.New("batch: the output is the input file")

// runner is one run's sending: a reader of the input feeding Concurrency workers, whose results
// one writer appends to the output.
type runner struct {
	client *infergate.Client
	job    Job
	h      hasher
	ids    *idSet
	out    *os.File
	start  time.Time

	mu       sync.Mutex
	progress Progress // Elapsed and PausedUntil are set when it is read
	paused   time.Time
	failure  error // the first error that stopped the run: reading the input, writing the output
	lastSync time.Time
}

func (r *runner) run(ctx context.Context) (*Summary, error) {
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	// The requests in flight outlive ctx by the grace period at most.
	sendCtx, cancelSends := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelSends()
	finished := make(chan struct{})
	graceDone := make(chan struct{})
	go func() {
		defer close(graceDone)
		select {
		case <-runCtx.Done():
		case <-finished:
			return
		}
		t := time.NewTimer(r.job.Grace)
		defer t.Stop()
		select {
		case <-t.C:
			cancelSends()
		case <-finished:
		}
	}()

	calls := make(chan *call)
	answers := make(chan answer, r.job.Concurrency)
	go r.feed(runCtx, stop, calls)
	var workers sync.WaitGroup
	for range r.job.Concurrency {
		workers.Go(func() {
			for c := range calls {
				if a, ok := r.do(runCtx, sendCtx, c); ok {
					answers <- a
				}
			}
		})
	}
	go func() {
		workers.Wait()
		close(answers)
	}()
	r.write(answers, stop)
	close(finished)
	<-graceDone

	err := r.out.Sync()
	if cerr := r.out.Close(); err == nil {
		err = cerr
	}
	sum := &Summary{Progress: r.snapshot()}
	r.mu.Lock()
	failure := r.failure
	r.mu.Unlock()
	switch {
	case failure != nil:
		return sum, failure
	case err != nil:
		return sum, fmt.Errorf("batch: output: %w", err)
	case ctx.Err() != nil:
		sum.Interrupted = true
		return sum, ctx.Err()
	}
	return sum, nil
}

// fail records the first error that stops the run, and stops it.
func (r *runner) fail(err error, stop context.CancelFunc) {
	r.mu.Lock()
	if r.failure == nil {
		r.failure = err
	}
	r.mu.Unlock()
	stop()
}

// feed reads the input again and hands out the requests of the shard that have no result.
func (r *runner) feed(ctx context.Context, stop context.CancelFunc, calls chan<- *call) {
	defer close(calls)
	f, err := os.Open(r.job.Input)
	if err != nil {
		r.fail(fmt.Errorf("batch: input: %w", err), stop)
		return
	}
	defer f.Close()
	lr := newLineReader(f)
	for ctx.Err() == nil {
		line, _, err := lr.next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err == nil && blank(line) {
			continue
		}
		// The id first, a cheaper read than the whole request's, which a resumed run mostly skips.
		var c call
		if err == nil {
			id := customIDOf(line)
			i, known := r.ids.find(r.h.key(id))
			switch {
			case !known:
				err = fmt.Errorf("custom_id %q is new", id)
			case !r.job.Shard.Contains(id) || r.ids.state[i] != pending:
				continue
			default:
				c, err = parseLine(line)
			}
		}
		if err != nil {
			r.fail(fmt.Errorf("batch: input line %d changed since it was checked: %w", lr.line, err), stop)
			return
		}
		select {
		case calls <- &c:
		case <-ctx.Done():
			return
		}
	}
}

// do sends one request until it has a result, pausing the run on a 429; false when the run ended
// before it had one.
func (r *runner) do(ctx, sendCtx context.Context, c *call) (answer, bool) {
	for pauses := 0; ; pauses++ {
		if !r.waitPause(ctx) {
			return answer{}, false
		}
		r.mu.Lock()
		if pauses == 0 {
			r.progress.Sent++
		}
		r.progress.InFlight++
		r.mu.Unlock()
		a := send(sendCtx, r.client, c, r.job.Options)
		r.mu.Lock()
		r.progress.InFlight--
		r.mu.Unlock()
		switch {
		case sendCtx.Err() != nil:
			return answer{}, false
		case a.limited && pauses < MaxRateLimitPauses:
			r.pause(a.retryAfter)
			continue
		}
		return a, true
	}
}

// pause holds every worker back from sending until d from now (or later, if already paused so).
func (r *runner) pause(d time.Duration) {
	if d <= 0 {
		d = defaultPause
	}
	until := time.Now().Add(d)
	r.mu.Lock()
	if until.After(r.paused) {
		r.paused = until
	}
	r.mu.Unlock()
}

// waitPause waits for the end of a pause; false when ctx ends first.
func (r *runner) waitPause(ctx context.Context) bool {
	for {
		if ctx.Err() != nil {
			return false
		}
		r.mu.Lock()
		wait := time.Until(r.paused)
		r.mu.Unlock()
		if wait <= 0 {
			return true
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return false
		}
	}
}
