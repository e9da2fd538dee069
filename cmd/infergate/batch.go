package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/batch"
	"github.com/infergate/infergate-go/internal/redisquota"
	"github.com/infergate/infergate-go/internal/resp"
)

// batchHelp is what batch's help says beyond its flags.
const batchHelp = "INPUT.jsonl holds OpenAI batch requests, one a line (custom_id, method, url, body), for\n" +
	"chat completions and embeddings; -o OUTPUT.jsonl gets one result a line, in OpenAI's batch result\n" +
	"format. Run the same command again to resume: only what has no result yet is sent.\n" +
	"Every line is checked before anything is sent: a bad line is named by its number, exit status 2.\n" +
	"Exit status: 0 when every request (of the shard) has a successful result, 1 when some failed,\n" +
	"130 on Ctrl-C, which stops sending and lets the requests in flight finish (a second Ctrl-C quits\n" +
	"at once); the output stays resumable either way."

func (a *app) batch(ctx context.Context, args []string) error {
	f := a.newFlags("batch")
	var output string
	f.StringVar(&output, "o", "", "the JSONL file of results (required): created, or resumed when it exists")
	f.StringVar(&output, "output", "", "the same as -o")
	concurrency := f.Int("concurrency", batch.DefaultConcurrency, "requests in flight at most")
	shardFlag := f.String("shard", "", "i/n: run only the requests whose custom_id hashes to part i of n (0 ≤ i < n), as one of n machines")
	retryFailed := f.Bool("retry-failed", false, "send again the requests whose result failed, replacing their results")
	redisURL := f.String("redis", "", "redis://[[user]:password@]host[:port][/db] (rediss:// for TLS): keep the quota and the models cooling there, shared by every process given the same")
	quotasFile := f.String("quotas", "", "a JSON file of the key's quotas, which the client keeps to (default: the deployed gateway's)")
	fallback := f.String("fallback", "", "comma-separated chat models tried in turn when a request's model fails")
	cooldown := f.Duration("cooldown", 0, "how long a chat model that failed is skipped by the requests that follow (with --fallback)")
	rest, err := f.parse(args, 1, 1)
	if err != nil {
		return err
	}
	input := rest[0]
	job := batch.Job{Input: input, Output: output, Concurrency: *concurrency, RetryFailed: *retryFailed}
	switch {
	case output == "":
		return usagef("give -o OUTPUT.jsonl, the file of results")
	case *concurrency <= 0:
		return usagef("--concurrency %d: give 1 or more", *concurrency)
	case *cooldown < 0:
		return usagef("--cooldown %v must not be negative", *cooldown)
	}
	if *shardFlag != "" {
		if job.Shard, err = batch.ParseShard(*shardFlag); err != nil {
			return usagef("--shard %s", strings.TrimPrefix(err.Error(), "batch: shard "))
		}
	}
	quotas := infergate.GatewayQuotas()
	if *quotasFile != "" {
		if quotas, err = readQuotas(*quotasFile); err != nil {
			return err
		}
	}
	if *redisURL != "" {
		if _, err := resp.ParseURL(*redisURL); err != nil {
			return usagef("--redis: %s", strings.TrimPrefix(err.Error(), "resp: "))
		}
	}
	if err := differentFiles(input, output); err != nil {
		return err
	}
	limiter := infergate.NewLimiter(quotas)
	var cooldowns infergate.CooldownStore
	if *redisURL != "" {
		dialCtx, cancel := context.WithTimeout(ctx, redisDialTimeout)
		shared, store, closeRedis, err := redisquota.Dial(dialCtx, *redisURL, quotas,
			redisquota.WithLogger(slog.New(slog.NewTextHandler(a.stderr, nil))))
		cancel()
		if err != nil {
			return fmt.Errorf("--redis: %w", err)
		}
		defer closeRedis()
		limiter, cooldowns = shared, store
	}
	opts := []infergate.Option{infergate.WithLimiter(limiter), infergate.WithCooldownStore(cooldowns)}
	if models := splitList(*fallback); len(models) > 0 {
		opts = append(opts, infergate.WithFallbackModels(models...))
	}
	if *cooldown > 0 {
		opts = append(opts, infergate.WithModelCooldown(*cooldown))
	}
	client, stop, err := a.connect(f, opts...)
	if err != nil {
		return err
	}
	defer stop()

	status := newBatchStatus(a.stderr, a.now, a.term.err)
	job.Progress = status.update
	stopNotice := context.AfterFunc(ctx, func() { status.stopping(batch.DefaultGrace) })
	defer stopNotice()
	summary, err := batch.Run(ctx, client, job)
	status.done()
	var bad *batch.InputError
	switch {
	case errors.As(err, &bad):
		for _, line := range bad.Lines {
			fmt.Fprintf(a.stderr, "infergate batch: %s:%d: %s\n", input, line.Line, oneLine(strings.TrimPrefix(line.Err.Error(), "infergate: ")))
		}
		fmt.Fprintf(a.stderr, "infergate batch: nothing was sent: correct %s first\n", input)
		return exitError(exitUsage)
	case summary == nil:
		return err
	}
	if f.json {
		if err := writeJSON(a.stdout, batchSummaryOutput(summary, job.Shard, output)); err != nil {
			return err
		}
	}
	status.summary(summary, job.Shard, output)
	switch {
	case summary.Interrupted || err != nil && ctx.Err() != nil:
		return exitError(exitInterrupted)
	case err != nil:
		return err
	case summary.Failed > 0 || summary.Succeeded < summary.Total:
		return exitError(exitFailed)
	}
	return nil
}

// redisDialTimeout bounds the wait for --redis's server to answer, so that an address where nothing
// answers is reported rather than waited for.
const redisDialTimeout = 10 * time.Second

// differentFiles refuses an output that is the input, which the run would destroy.
func differentFiles(input, output string) error {
	in, err := os.Stat(input)
	if err != nil {
		return err
	}
	if out, err := os.Stat(output); err == nil && os.SameFile(in, out) {
		return usagef("-o %s is the input: give another file for the results", output)
	}
	return nil
}

// splitList reads a comma-separated list, leaving out empty names.
func splitList(s string) []string {
	var names []string
	for name := range strings.SplitSeq(s, ",") {
		if name = strings.TrimSpace(name); name != "" {
			names = append(names, name)
		}
	}
	return names
}

// batchSummaryJSON is batch --json: the state of the output for the requests the run covers.
type batchSummaryJSON struct {
	Output         string           `json:"output"`
	Shard          string           `json:"shard,omitempty"` // i/n; none for the whole file
	Total          int              `json:"total"`
	Succeeded      int              `json:"succeeded"`
	Failed         int              `json:"failed"`
	WithoutResult  int              `json:"without_result"`
	Resumed        int              `json:"resumed"`
	Sent           int              `json:"sent"`
	Usage          infergate.Usage  `json:"usage"`
	Cost           *infergate.Money `json:"cost,omitempty"`
	Unpriced       int              `json:"unpriced"`
	ElapsedSeconds float64          `json:"elapsed_seconds"`
	Interrupted    bool             `json:"interrupted"`
}

func batchSummaryOutput(s *batch.Summary, shard batch.Shard, output string) batchSummaryJSON {
	return batchSummaryJSON{
		Output: output, Shard: shard.String(), Total: s.Total, Succeeded: s.Succeeded, Failed: s.Failed,
		WithoutResult: max(s.Total-s.Succeeded-s.Failed, 0), Resumed: s.Resumed, Sent: s.Sent,
		Usage: s.Usage, Cost: s.Cost, Unpriced: s.Unpriced,
		ElapsedSeconds: s.Elapsed.Round(time.Millisecond).Seconds(), Interrupted: s.Interrupted,
	}
}
