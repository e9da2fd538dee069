package infergate

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestTranscriptionNilFile gives typed nil readers as File: a *ValidationError, not a panic.
func TestTranscriptionNilFile(t *testing.T) {
	t.Parallel()
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

// TestUploadReadFailureNotRetried has the file fail while it is sent: the call fails at once, with
// the file's error, where it used to be read again on each of three attempts.
func TestUploadReadFailureNotRetried(t *testing.T) {
	t.Parallel()
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
