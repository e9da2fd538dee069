package infergate

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestTranscriptionNilFile gives typed nil readers as File: a *ValidationError, not a panic.
func TestTranscriptionNilFile(t *testing.T) {
	srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, `{"text":"x"}`) })
	client, _ := newTestClient(t, srv.URL)
	for _, file := range []io.Reader{(*os.File)(nil), (*bytes.Reader)(nil), (*strings.Reader)(nil), (*io.SectionReader)(nil)} {
		req := TranscriptionRequest{File: file, FileName: "a.wav"}
		var invalid *ValidationError
		if err := req.Validate(); !errors.As(err, &invalid) || invalid.Field != "File" {
			t.Errorf("%T: Validate = %v, want a File *ValidationError", file, err)
		}
		req.FileName = ""
		if _, err := client.Audio.Transcribe(t.Context(), req); !errors.As(err, &invalid) {
			t.Errorf("%T without a name: Transcribe = %v, want a *ValidationError", file, err)
		}
	}
	if got := srv.hits.Load(); got != 0 {
		t.Errorf("server saw %d requests, want none", got)
	}
}

// failingReaderAt is an upload whose reads fail, as a file on a dying disk does.
type failingReaderAt struct{ reads atomic.Int64 }

func (f *failingReaderAt) Read([]byte) (int, error) { return 0, errors.New("unused") }
func (f *failingReaderAt) ReadAt([]byte, int64) (int, error) {
	f.reads.Add(1)
	return 0, errors.New("input/output error")
}
func (f *failingReaderAt) Size() int64 { return 1 << 20 }

// TestUploadReadFailureNotRetried has the file fail while it is sent: the call fails at once, with
// the file's error, where it used to be read again on each of three attempts.
func TestUploadReadFailureNotRetried(t *testing.T) {
	checkGoroutines(t)
	srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, `{"text":"x"}`)
	})
	client, _ := newTestClient(t, srv.URL)
	file := &failingReaderAt{}
	_, err := client.Audio.Transcribe(t.Context(), TranscriptionRequest{File: file, FileName: "a.wav"})
	if err == nil || !strings.Contains(err.Error(), "input/output error") {
		t.Fatalf("err = %v, want the file's read error", err)
	}
	if got := file.reads.Load(); got != 1 {
		t.Errorf("the file was read %d times, want 1 (no retry)", got)
	}
}

// TestUnknownAuthorityNotRetried calls a TLS server whose certificate the client does not trust:
// one connection, no retries.
func TestUnknownAuthorityNotRetried(t *testing.T) {
	checkGoroutines(t)
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `[]`)
	}))
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Config.ErrorLog = nil
	srv.StartTLS()
	t.Cleanup(srv.Close)
	client, _ := newTestClient(t, srv.URL, WithRetryBackoff(10*time.Millisecond, 10*time.Millisecond))
	_, err := client.Models.List(t.Context())
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("err = %v, want a certificate error", err)
	}
	if got := conns.Load(); got != 1 {
		t.Errorf("server saw %d connections, want 1 (no retry)", got)
	}
}
