package batch_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/batch"
	"github.com/infergate/infergate-go/gatewaytest"
)

// The scale measurements run against a gateway in a child process, so that its memory and CPU time
// are not counted as the batch's: the test binary again, started with scaleChildEnv naming the
// server, "minimal" (a handler answering every chat request with one fixed completion, as fast as
// loopback HTTP allows) or "gatewaytest" (the fake gateway, which models, rate-limits and records
// every request, and so grows with the run).
const (
	scaleChildEnv = "INFERGATE_BATCH_SCALE_CHILD"
	// scaleServerEnv chooses the server of TestRunHeapIsBounded; "minimal" unless set.
	scaleServerEnv = "INFERGATE_BATCH_SCALE_SERVER"
	// scaleRequestsEnv sets the requests of TestRunHeapIsBounded; 20,000 unless set.
	scaleRequestsEnv = "INFERGATE_BATCH_SCALE_REQUESTS"
	maxHeap          = 64 << 20
)

// serveScale serves until its standard input closes, having written its URL on standard output.
func serveScale(kind string) int {
	var url string
	switch kind {
	case "gatewaytest":
		s := gatewaytest.NewServer()
		defer s.Close()
		url = s.URL()
	default:
		const answer = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"llama-3.3-70b","choices":[{"index":0,"message":{"role":"assistant","content":"Paris."},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}`
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Request-Id", "req-1")
			io.WriteString(w, answer)
		}))
		defer s.Close()
		url = s.URL
	}
	fmt.Println(url)
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// startScaleServer starts the gateway process and returns a client of it.
func startScaleServer(tb testing.TB, kind string) *infergate.Client {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), scaleChildEnv+"="+kind)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		tb.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	tb.Cleanup(hc.CloseIdleConnections)
	client, err := infergate.NewClient(infergate.WithBaseURL(url[:len(url)-1]),
		infergate.WithAPIKey(gatewaytest.DefaultAPIKey), infergate.WithHTTPClient(hc))
	if err != nil {
		tb.Fatal(err)
	}
	return client
}

// scaleInput writes n chat requests.
func scaleInput(tb testing.TB, n int) (input, output string) {
	tb.Helper()
	dir := tb.TempDir()
	input, output = filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "out.jsonl")
	f, err := os.Create(input)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range n {
		fmt.Fprintf(w, `{"custom_id":"request-%07d","method":"POST","url":"/v1/chat/completions","body":{"model":"llama-3.3-70b","messages":[{"role":"user","content":"What is the capital of France? (%d)"}],"max_tokens":16}}`+"\n", i, i)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	return input, output
}

// heapPeak samples the heap's objects, live and not yet collected, until stopped, and returns the
// largest sample, and the largest heap the garbage collector found live.
func heapPeak() (stop func() (peak, live uint64)) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	done := make(chan struct{})
	var peak, live uint64
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			live = max(live, sample[1].Value.Uint64())
			select {
			case <-t.C:
			case <-done:
				return
			}
		}
	})
	return func() (uint64, uint64) {
		close(done)
		wg.Wait()
		return peak, live
	}
}

// scaleFigures runs f, which sends n requests, and reports requests per second, CPU time per
// request and the heap's peak.
func scaleFigures(n int, f func() error) (perSecond float64, cpuPerRequest time.Duration, peak, live uint64, err error) {
	runtime.GC()
	stop := heapPeak()
	cpu0, _ := processCPU()
	start := time.Now()
	err = f()
	elapsed := time.Since(start)
	cpu1, _ := processCPU()
	peak, live = stop()
	return float64(n) / elapsed.Seconds(), (cpu1 - cpu0) / time.Duration(n), peak, live, err
}

// TestRunHeapIsBounded runs 20,000 requests (scaleRequestsEnv sets another number: a million is the
// figure the package's documentation gives) and fails when the heap's peak passes 64 MiB: memory
// follows the concurrency, not the file. It logs the requests per second and the CPU time per
// request, which it does not judge. It is not parallel: the heap and the CPU time it reads are the
// process's.
func TestRunHeapIsBounded(t *testing.T) {
	n := 20000
	if s := os.Getenv(scaleRequestsEnv); s != "" {
		n, _ = strconv.Atoi(s)
	}
	kind := os.Getenv(scaleServerEnv)
	if kind == "" {
		kind = "minimal"
	}
	client := startScaleServer(t, kind)
	in, out := scaleInput(t, n)
	var sum *batch.Summary
	perSecond, cpu, peak, live, err := scaleFigures(n, func() (err error) {
		sum, err = batch.Run(context.Background(), client, batch.Job{Input: in, Output: out})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Succeeded != n {
		t.Fatalf("%d of %d succeeded", sum.Succeeded, n)
	}
	t.Logf("%d requests against %s: %.0f requests/s, %v CPU per request, heap peak %.1f MiB (live %.1f MiB)",
		n, kind, perSecond, cpu, float64(peak)/(1<<20), float64(live)/(1<<20))
	if peak > maxHeap {
		t.Errorf("heap peak %.1f MiB, more than %d MiB", float64(peak)/(1<<20), maxHeap>>20)
	}
}

// BenchmarkRun measures a run of b.N requests (-benchtime 1000000x for a million) against the
// minimal gateway, beside the baseline of the same requests sent with Chat.Create by as many
// goroutines, without a file: the batch's cost is the ratio of the two.
func BenchmarkRun(b *testing.B) {
	client := startScaleServer(b, "minimal")
	report := func(b *testing.B, perSecond float64, cpu time.Duration, peak, live uint64) {
		b.ReportMetric(perSecond, "req/s")
		b.ReportMetric(float64(cpu.Microseconds()), "cpu-µs/req")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(live)/(1<<20), "live-heap-MiB")
	}
	b.Run("batch", func(b *testing.B) {
		in, out := scaleInput(b, b.N)
		b.ResetTimer()
		perSecond, cpu, peak, live, err := scaleFigures(b.N, func() error {
			_, err := batch.Run(context.Background(), client, batch.Job{Input: in, Output: out})
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		report(b, perSecond, cpu, peak, live)
	})
	b.Run("direct", func(b *testing.B) {
		req := infergate.ChatRequest{Model: "llama-3.3-70b", MaxTokens: infergate.Ptr(16),
			Messages: []infergate.Message{{Role: infergate.RoleUser, Content: "What is the capital of France?"}}}
		b.ResetTimer()
		perSecond, cpu, peak, live, err := scaleFigures(b.N, func() error {
			next := make(chan struct{})
			var wg sync.WaitGroup
			var failed error
			var mu sync.Mutex
			for range batch.DefaultConcurrency {
				wg.Go(func() {
					for range next {
						if _, err := client.Chat.Create(context.Background(), req); err != nil {
							mu.Lock()
							failed = err
							mu.Unlock()
						}
					}
				})
			}
			for range b.N {
				next <- struct{}{}
			}
			close(next)
			wg.Wait()
			return failed
		})
		if err != nil {
			b.Fatal(err)
		}
		report(b, perSecond, cpu, peak, live)
	})
}
