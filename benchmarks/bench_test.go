package benchmarks

import (
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"runtime"
	"testing"
	"time"
)

// Every benchmark runs one sub-benchmark per contender, named after it; run.sh reads the figures
// by those names. The per-chunk and per-upload figures are custom metrics, reported with
// b.ReportMetric, because one operation (a whole stream) hides them.

func BenchmarkTextStream(b *testing.B) {
	w := textStream(textChunks)
	benchStream(b, w, func(c contender, ctx context.Context) (streamResult, error) { return c.streamText(ctx) },
		func(b *testing.B, got streamResult) {
			if got.text != w.text {
				b.Fatalf("decoded %d bytes of text, want %d", len(got.text), len(w.text))
			}
		})
}

func BenchmarkToolStream(b *testing.B) {
	benchToolStream(b, toolStream(toolFragments, false))
}

// BenchmarkToolStreamPlaceholder adds the "{}" fragment some providers send first; its valid-json
// metric is 1 when the reassembled arguments are valid JSON, 0 when not.
func BenchmarkToolStreamPlaceholder(b *testing.B) {
	benchToolStream(b, toolStream(toolFragments, true))
}

func benchToolStream(b *testing.B, w streamWorkload) {
	benchStream(b, w, func(c contender, ctx context.Context) (streamResult, error) { return c.streamTool(ctx) },
		func(b *testing.B, got streamResult) {
			valid := 0.0
			if json.Valid([]byte(got.args)) {
				valid = 1
			}
			b.ReportMetric(valid, "valid-json")
			if len(got.args) < len(w.args) {
				b.Fatalf("reassembled %d bytes of arguments, want %d", len(got.args), len(w.args))
			}
		})
}

func benchStream(b *testing.B, w streamWorkload, run func(contender, context.Context) (streamResult, error), check func(*testing.B, streamResult)) {
	for _, kind := range contenders {
		b.Run(kind.name, func(b *testing.B) {
			c, _ := replayed(b, kind, w.body, "text/event-stream")
			ctx := context.Background()
			var got streamResult
			b.SetBytes(int64(len(w.body)))
			b.ReportAllocs()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			start := processCPU(b)
			for range b.N {
				var err error
				if got, err = run(c, ctx); err != nil {
					b.Fatal(err)
				}
			}
			cpu := processCPU(b) - start
			b.StopTimer()
			reportPer(b, &before, w.chunks, "chunk")
			b.ReportMetric(float64(cpu)/float64(b.N*w.chunks), "cpu-ns/chunk")
			check(b, got)
		})
	}
}

// reportPer turns the run's time and allocations into figures per unit (a chunk, say).
func reportPer(b *testing.B, before *runtime.MemStats, perOp int, unit string) {
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	total := float64(b.N * perOp)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/"+unit)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/total, "B/"+unit)
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/total, "allocs/"+unit)
}

func BenchmarkCompletion(b *testing.B) {
	body, text := completionBody(completionSize)
	benchCall(b, body, len(body), func(c contender, ctx context.Context) error {
		got, err := c.complete(ctx)
		if err == nil && len(got) != len(text) {
			b.Fatalf("decoded %d bytes of text, want %d", len(got), len(text))
		}
		return err
	})
}

// BenchmarkToolCompletion reads a non-streamed answer whose one tool call carries 50 KB of
// arguments: JSON in a JSON string, a quote escaped every few bytes.
func BenchmarkToolCompletion(b *testing.B) {
	_, args := objectJSON()
	body := objectCompletionBody(args)
	benchCall(b, body, len(body), func(c contender, ctx context.Context) error {
		got, err := c.completeCall(ctx)
		if err == nil && got != string(args) {
			b.Fatalf("decoded %d bytes of arguments, want %d", len(got), len(args))
		}
		return err
	})
}

func BenchmarkModels(b *testing.B) {
	body := catalogueBody(catalogueSize)
	benchCall(b, body, len(body), func(c contender, ctx context.Context) error {
		ids, err := c.listModels(ctx)
		if err == nil && len(ids) != catalogueSize {
			b.Fatalf("decoded %d models, want %d", len(ids), catalogueSize)
		}
		return err
	})
}

// BenchmarkEncode measures how each client sends a long conversation: a whole Create call with
// the 20-turn history, through the replay transport, which reads the request body and answers
// shortAnswer. Neither openai-go nor go-openai exposes its request building, so the call is what
// can be compared; it includes each client's fixed cost of a call (the request's set-up and the
// short answer's decoding), a few microseconds beside the body's encoding. MB/s is of the history's
// text.
func BenchmarkEncode(b *testing.B) {
	text := 0
	for _, h := range history {
		text += len(h.content)
	}
	benchCall(b, []byte(shortAnswer), text, func(c contender, ctx context.Context) error {
		_, err := c.sendHistory(ctx)
		return err
	})
}

func benchCall(b *testing.B, body []byte, size int, call func(contender, context.Context) error) {
	for _, kind := range contenders {
		b.Run(kind.name, func(b *testing.B) {
			c, _ := replayed(b, kind, body, "application/json")
			ctx := context.Background()
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for range b.N {
				if err := call(c, ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// uploadSize is the audio file BenchmarkUpload sends.
const uploadSize = 200 << 20

// BenchmarkUpload transcribes a 200 MiB file through a transport that discards the body, and
// reports the highest heap in use above the heap before the call, over all iterations.
func BenchmarkUpload(b *testing.B) {
	for _, kind := range contenders {
		b.Run(kind.name, func(b *testing.B) {
			c, rt := replayed(b, kind, []byte(`{"text":"hello world"}`), "application/json")
			audio := sparseAudio(b, uploadSize)
			ctx := context.Background()
			var peak uint64
			b.SetBytes(uploadSize)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := audio.Seek(0, io.SeekStart); err != nil {
					b.Fatal(err)
				}
				sampler := startHeapSampler()
				_, err := c.transcribe(ctx, audio)
				peak = max(peak, sampler.finish())
				if err != nil {
					b.Fatal(err)
				}
				if sent := rt.lastRequest().bodyBytes; sent <= uploadSize {
					b.Fatalf("sent %d bytes, want the whole %d-byte file", sent, uploadSize)
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}

// BenchmarkFirstDelta measures, over loopback, the delay from the server's flush of the first
// chunk to the client's Next (or Recv) returning it, split into the wake-up (until the body's Read
// returns the chunk, the same for every client) and the client's own work (from there to the
// delta in hand). Each sample runs every contender once, in a new random order, so that none gains
// from going after the others (warm caches, a woken scheduler). It reports, per contender, the
// median and 99th percentile of the delay and the medians of its two parts, in units suffixed with
// the contender's name.
func BenchmarkFirstDelta(b *testing.B) {
	srv := newFirstDeltaServer(b)
	arrival := &arrivalTransport{base: srv.Client().Transport}
	hc := &http.Client{Transport: arrival}
	clients := make([]contender, len(contenders))
	for i, kind := range contenders {
		clients[i] = kind.build(b, srv.URL+"/api/v1", hc)
	}
	ctx := context.Background()
	samples := make([]firstDeltaSamples, len(contenders))
	order := make([]int, len(contenders))
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
	for range b.N {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			sample, text, err := srv.measure(ctx, clients[i], arrival)
			if err != nil {
				b.Fatalf("%s: %v", contenders[i].name, err)
			}
			if text != firstDeltaText {
				b.Fatalf("%s: first delta %q, want %q", contenders[i].name, text, firstDeltaText)
			}
			samples[i] = append(samples[i], sample)
		}
	}
	for i, kind := range contenders {
		total, wake, own := samples[i].split()
		report := func(d time.Duration, unit string) {
			b.ReportMetric(float64(d.Nanoseconds())/1e3, unit+":"+kind.name)
		}
		report(percentile(total, 50), "p50-us")
		report(percentile(total, 99), "p99-us")
		report(percentile(wake, 50), "wake-p50-us")
		report(percentile(own, 50), "own-p50-us")
	}
}
