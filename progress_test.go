package infergate_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/infergate/infergate-go"
)

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
