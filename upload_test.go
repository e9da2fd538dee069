package infergate_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/infergate/infergate-go"
)

// countingReader counts the bytes of a request body, to compare with its Content-Length.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// uploadSeen is one request as an upload server received it.
type uploadSeen struct {
	receivedUpload
	bodyBytes int64    // bytes actually read from the body
	encoding  []string // Transfer-Encoding
}

// uploadServer is a loopback server that reads every upload in full, hashing the file as it streams
// by, and answers the n-th request with statuses[n] (the last status repeats).
type uploadServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []uploadSeen
}

func newUploadServer(t testing.TB, statuses ...int) *uploadServer {
	t.Helper()
	s := &uploadServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := &countingReader{r: r.Body}
		r.Body = io.NopCloser(body)
		got, err := readUpload(r)
		if err != nil {
			t.Errorf("reading upload: %v", err)
		}
		_, _ = io.Copy(io.Discard, body)
		s.mu.Lock()
		s.seen = append(s.seen, uploadSeen{receivedUpload: got, bodyBytes: body.n, encoding: r.TransferEncoding})
		status := statuses[min(len(s.seen), len(statuses))-1]
		s.mu.Unlock()
		w.Header().Set("Retry-After", "0") // retry at once: tests never sleep
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"text":"done"}`)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *uploadServer) uploads() []uploadSeen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]uploadSeen(nil), s.seen...)
}

func (s *uploadServer) client(t testing.TB, retries int) *infergate.Client {
	t.Helper()
	return testClient(t, s.URL, infergate.WithAPIKey(audioKey), infergate.WithMaxRetries(retries))
}

// audioFile writes data to a temporary .wav file and opens it, positioned at offset.
func audioFile(t *testing.T, data []byte, offset int64) *os.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "clip.wav")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	return f
}

// pipeOf returns the read end of an OS pipe fed with data: an *os.File that cannot seek.
func pipeOf(t *testing.T, data []byte) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	go func() {
		_, _ = w.Write(data)
		w.Close()
	}()
	return r
}

func TestTranscribeUploadsExactBytes(t *testing.T) {
	t.Parallel()
	data := make([]byte, 3<<20+17)
	rng := rand.NewChaCha8([32]byte{1})
	_, _ = rng.Read(data)
	tests := []struct {
		name      string
		file      func(t *testing.T) io.Reader
		want      []byte
		knownSize bool
	}{
		{"os.File", func(t *testing.T) io.Reader { return audioFile(t, data, 0) }, data, true},
		{"os.File read from an offset", func(t *testing.T) io.Reader { return audioFile(t, data, 1000) }, data[1000:], true},
		{"bytes.Reader", func(*testing.T) io.Reader { return bytes.NewReader(data) }, data, true},
		{"bytes.Reader partly read", func(*testing.T) io.Reader {
			r := bytes.NewReader(data)
			_, _ = r.Read(make([]byte, 5))
			return r
		}, data[5:], true},
		{"strings.Reader", func(*testing.T) io.Reader { return strings.NewReader(string(data)) }, data, true},
		{"io.SectionReader", func(*testing.T) io.Reader { return io.NewSectionReader(bytes.NewReader(data), 10, 5000) }, data[10:5010], true},
		{"plain reader", func(*testing.T) io.Reader { return struct{ io.Reader }{bytes.NewReader(data)} }, data, false},
		{"pipe", func(t *testing.T) io.Reader { return pipeOf(t, data) }, data, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newUploadServer(t, 200)
			req := infergate.TranscriptionRequest{File: tt.file(t), FileName: "clip.wav", Language: "en"}
			if _, err := srv.client(t, 2).Audio.Transcribe(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			ups := srv.uploads()
			if len(ups) != 1 {
				t.Fatalf("%d uploads, want 1", len(ups))
			}
			up := ups[0]
			if up.fileSize != int64(len(tt.want)) || up.fileSHA != sha(tt.want) {
				t.Errorf("server got %d bytes (sha %s), want %d bytes", up.fileSize, up.fileSHA, len(tt.want))
			}
			if up.fields["language"] != "en" {
				t.Errorf("fields = %v", up.fields)
			}
			if tt.knownSize {
				if up.contentLength <= int64(len(tt.want)) || up.contentLength != up.bodyBytes || len(up.encoding) != 0 {
					t.Errorf("Content-Length %d for a body of %d bytes (Transfer-Encoding %v), want exact",
						up.contentLength, up.bodyBytes, up.encoding)
				}
			} else if up.contentLength != -1 || len(up.encoding) != 1 || up.encoding[0] != "chunked" {
				t.Errorf("Content-Length %d, Transfer-Encoding %v; want a chunked upload", up.contentLength, up.encoding)
			}
		})
	}
}

func TestTranscribeRetrySendsWholeFileAgain(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	srv := newUploadServer(t, http.StatusServiceUnavailable, http.StatusOK)
	got, err := srv.client(t, 2).Audio.Transcribe(context.Background(),
		infergate.TranscriptionRequest{File: audioFile(t, data, 0), FileName: "clip.wav"})
	if err != nil || got.Text != "done" {
		t.Fatalf("Transcribe = %+v, %v", got, err)
	}
	ups := srv.uploads()
	if len(ups) != 2 {
		t.Fatalf("%d uploads, want 2 (a 503, then a success)", len(ups))
	}
	for i, up := range ups {
		if up.fileSHA != sha(data) || up.contentLength != up.bodyBytes {
			t.Errorf("attempt %d: %d file bytes, Content-Length %d for %d body bytes; want the whole file, exact length",
				i+1, up.fileSize, up.contentLength, up.bodyBytes)
		}
	}
}

func TestTranscribeReadOnceReaderIsNotRetried(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("audio"), 50_000)
	srv := newUploadServer(t, http.StatusServiceUnavailable)
	_, err := srv.client(t, 3).Audio.Transcribe(context.Background(),
		infergate.TranscriptionRequest{File: io.MultiReader(bytes.NewReader(data)), FileName: "clip.webm"})
	var apiErr *infergate.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("err = %v, want the 503", err)
	}
	ups := srv.uploads()
	if len(ups) != 1 {
		t.Fatalf("%d uploads of a read-once reader, want exactly 1", len(ups))
	}
	if ups[0].fileSHA != sha(data) {
		t.Errorf("the one upload carried %d bytes, want the whole reader", ups[0].fileSize)
	}
}

// progressLog keeps every report an upload made.
type progressLog struct {
	mu   sync.Mutex
	seen []infergate.UploadProgress
}

func (l *progressLog) add(p infergate.UploadProgress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, p)
}

func (l *progressLog) reports() []infergate.UploadProgress {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]infergate.UploadProgress(nil), l.seen...)
}

// attempts splits the reports by attempt, checking that each attempt starts at 0 and only grows,
// and that attempts are numbered 1, 2, ... in order.
func attempts(t *testing.T, reports []infergate.UploadProgress) [][]infergate.UploadProgress {
	t.Helper()
	var out [][]infergate.UploadProgress
	for i, p := range reports {
		switch {
		case p.Attempt == len(out)+1:
			if p.Sent != 0 {
				t.Errorf("report %d opens attempt %d at %d bytes, want 0", i, p.Attempt, p.Sent)
			}
			out = append(out, nil)
		case p.Attempt != len(out):
			t.Fatalf("report %d is of attempt %d during attempt %d", i, p.Attempt, len(out))
		case p.Sent < out[len(out)-1][len(out[len(out)-1])-1].Sent:
			t.Errorf("report %d goes back from %d to %d bytes", i, out[len(out)-1][len(out[len(out)-1])-1].Sent, p.Sent)
		}
		out[len(out)-1] = append(out[len(out)-1], p)
	}
	return out
}

func TestTranscribeProgress(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB, many reads
	size := int64(len(data))
	tests := []struct {
		name     string
		file     func(t *testing.T) io.Reader
		statuses []int
		total    int64
		attempts int
	}{
		{"file", func(t *testing.T) io.Reader { return audioFile(t, data, 0) }, []int{http.StatusOK}, size, 1},
		{"file from an offset", func(t *testing.T) io.Reader { return audioFile(t, data, 100) }, []int{http.StatusOK}, size - 100, 1},
		{"retried after a 503", func(t *testing.T) io.Reader { return audioFile(t, data, 0) },
			[]int{http.StatusServiceUnavailable, http.StatusOK}, size, 2},
		{"read-once reader", func(*testing.T) io.Reader { return struct{ io.Reader }{bytes.NewReader(data)} },
			[]int{http.StatusOK}, -1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newUploadServer(t, tt.statuses...)
			client := testClient(t, srv.URL, infergate.WithAPIKey(audioKey), infergate.WithMaxRetries(2),
				infergate.WithRetryBackoff(0, 0))
			var log progressLog
			req := infergate.TranscriptionRequest{File: tt.file(t), FileName: "clip.wav", Progress: log.add}
			if _, err := client.Audio.Transcribe(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			byAttempt := attempts(t, log.reports())
			if len(byAttempt) != tt.attempts {
				t.Fatalf("%d attempts reported, want %d", len(byAttempt), tt.attempts)
			}
			sent := tt.total
			if sent < 0 { // a read-once reader sends all of data
				sent = size
			}
			for i, reports := range byAttempt {
				last := reports[len(reports)-1]
				if last.Sent != sent {
					t.Errorf("attempt %d ended at %d bytes, want %d", i+1, last.Sent, sent)
				}
				if len(reports) < 3 {
					t.Errorf("attempt %d made %d reports, want one per read", i+1, len(reports))
				}
				for _, p := range reports {
					if p.Total != tt.total {
						t.Fatalf("attempt %d reports a total of %d, want %d", i+1, p.Total, tt.total)
					}
				}
			}
		})
	}
}

func TestTranscribeProgressNotCalledWithoutFile(t *testing.T) {
	t.Parallel()
	srv := newUploadServer(t, http.StatusOK)
	called := false
	req := infergate.TranscriptionRequest{S3PresignedURL: "https://bucket.example/a.mp3",
		Progress: func(infergate.UploadProgress) { called = true }}
	if _, err := srv.client(t, 0).Audio.Transcribe(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if called {
		t.Error("Progress was called for an upload without a file")
	}
}
