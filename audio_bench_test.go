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
	"sync/atomic"
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
	var reports atomic.Int64
	followed := func(infergate.UploadProgress) { reports.Add(1) }
	sources := []struct {
		name     string
		wrap     func(*os.File) io.Reader
		progress func(infergate.UploadProgress)
	}{
		{"file", func(f *os.File) io.Reader { return f }, nil},                           // exact Content-Length, retryable
		{"read-once", func(f *os.File) io.Reader { return struct{ io.Reader }{f} }, nil}, // chunked, sent once
		// The same two uploads followed by a Progress function: its cost against the two above.
		{"file-progress", func(f *os.File) io.Reader { return f }, followed},
		{"read-once-progress", func(f *os.File) io.Reader { return struct{ io.Reader }{f} }, followed},
	}
	for _, src := range sources {
		b.Run(src.name, func(b *testing.B) {
			b.SetBytes(size)
			var worst uint64
			reports.Store(0)
			cpuBefore, measured := processCPU()
			for b.Loop() {
				worst = max(worst, uploadPeak(b, client, infergate.TranscriptionRequest{
					FileName: "long.wav", Progress: src.progress}, path, src.wrap))
			}
			if cpuAfter, ok := processCPU(); measured && ok {
				// The client's and the loopback server's CPU time: the upload's cost, steadier than
				// ns/op on a loaded machine.
				b.ReportMetric(float64(cpuAfter-cpuBefore)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
			}
			if src.progress != nil && reports.Load() == 0 {
				b.Fatal("Progress was never called")
			}
			b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MiB")
		})
	}
}

// uploadPeak transcribes the file at path once, as req's File, and returns the heap growth at its
// peak.
func uploadPeak(b *testing.B, client *infergate.Client, req infergate.TranscriptionRequest, path string, wrap func(*os.File) io.Reader) uint64 {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	runtime.GC()
	base := heapInUse(heapSamples())
	stop := watchHeap()
	req.File = wrap(f)
	_, err = client.Audio.Transcribe(context.Background(), req)
	peak := stop()
	if err != nil {
		b.Fatal(err)
	}
	if peak < base {
		return 0
	}
	return peak - base
}
