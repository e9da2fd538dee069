package infergate_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/infergate/infergate-go"
)

// heapInUse reads the bytes of heap spans in use, the figure runtime.MemStats calls HeapInuse,
// without stopping the world.
func heapInUse(samples []metrics.Sample) uint64 {
	metrics.Read(samples)
	return samples[0].Value.Uint64() + samples[1].Value.Uint64()
}

func heapSamples() []metrics.Sample {
	return []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
}

// watchHeap samples the heap in use every 200µs until the returned function is called, which
// returns the highest value seen.
func watchHeap() (stop func() uint64) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	var peak uint64
	wg.Add(1)
	go func() {
		defer wg.Done()
		samples := heapSamples()
		tick := time.NewTicker(200 * time.Microsecond)
		defer tick.Stop()
		for {
			peak = max(peak, heapInUse(samples))
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// BenchmarkTranscribeUpload200MiB uploads a 200 MiB file to a loopback server that throws the
// bytes away, and reports the peak heap in use above the heap before the call: the upload's memory
// cost, which must not grow with the file.
func BenchmarkTranscribeUpload200MiB(b *testing.B) {
	const size = 200 << 20
	path := sparseAudio(b, size)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		if n < size {
			http.Error(w, `{"detail":"short upload"}`, http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, `{"text":"ok"}`)
	}))
	defer srv.Close()
	client := testClient(b, srv.URL, infergate.WithAPIKey(audioKey))
	sources := []struct {
		name string
		wrap func(*os.File) io.Reader
	}{
		{"file", func(f *os.File) io.Reader { return f }},                           // exact Content-Length, retryable
		{"read-once", func(f *os.File) io.Reader { return struct{ io.Reader }{f} }}, // chunked, sent once
	}
	for _, src := range sources {
		b.Run(src.name, func(b *testing.B) {
			b.SetBytes(size)
			var worst uint64
			for b.Loop() {
				worst = max(worst, uploadPeak(b, client, path, src.wrap))
			}
			b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MiB")
		})
	}
}

// uploadPeak transcribes the file at path once and returns the heap growth at its peak.
func uploadPeak(b *testing.B, client *infergate.Client, path string, wrap func(*os.File) io.Reader) uint64 {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	runtime.GC()
	base := heapInUse(heapSamples())
	stop := watchHeap()
	_, err = client.Audio.Transcribe(context.Background(),
		infergate.TranscriptionRequest{File: wrap(f), FileName: "long.wav"})
	peak := stop()
	if err != nil {
		b.Fatal(err)
	}
	if peak < base {
		return 0
	}
	return peak - base
}
