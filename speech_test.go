package infergate

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestSpeechStreamsTheAudio(t *testing.T) {
	t.Parallel()
	audio := bytes.Repeat([]byte{0xFF, 0xFB, 0x90, 0xC4}, 1<<16)
	mock, _ := recordAll(t, 200, string(audio), "audio/mpeg")
	body, err := mockClient(t, mock).Audio.Speak(t.Context(), SpeechRequest{Input: "Hello"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(body)
	if err != nil || !bytes.Equal(got, audio) {
		t.Fatalf("read %d bytes, err %v; want the %d bytes sent", len(got), err, len(audio))
	}
	if err := body.Close(); err != nil {
		t.Error(err)
	}
}

func TestSpeechErrorsInSuccessfulAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, contentType, body, wantMessage string
	}{
		{"proxy error as JSON", "application/json", `{"error":{"message":"provider down","type":"proxy_error"}}`, "provider down"},
		{"JSON without a Content-Type", "", ` {"error":"no provider"}`, "no provider"},
		{"JSON that is no envelope", "application/json", `{"audio":"elsewhere"}`, "expected audio"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mock, _ := recordAll(t, 200, tt.body, tt.contentType)
			_, err := mockClient(t, mock).Audio.Speak(t.Context(), SpeechRequest{Input: "x"})
			var apiErr *APIError
			if !errors.As(err, &apiErr) || !strings.Contains(apiErr.Message, tt.wantMessage) || string(apiErr.Body) != tt.body {
				t.Fatalf("err = %v, want an *APIError saying %q with the body", err, tt.wantMessage)
			}
		})
	}
}

func TestSpeechTruncatedAudioIsAnError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "audio/wav")
		w.Header().Set("Content-Length", "1000")
		_, _ = w.Write([]byte("RIFF and then the provider died"))
	}))
	defer srv.Close()
	client := testClient(t, srv.URL)
	n, err := client.Audio.SpeakTo(t.Context(), io.Discard, SpeechRequest{Input: "x"})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("copied %d bytes, err = %v; want io.ErrUnexpectedEOF", n, err)
	}
	path := filepath.Join(t.TempDir(), "cut.wav")
	if err := client.Audio.SpeakToFile(t.Context(), path, SpeechRequest{Input: "x"}); err == nil {
		t.Fatal("SpeakToFile succeeded on a cut answer")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a partial file was left behind: %v", err)
	}
}

func TestSpeakToFile(t *testing.T) {
	t.Parallel()
	mock, _ := recordAll(t, 200, "fLaC-audio", "audio/flac")
	path := filepath.Join(t.TempDir(), "hello.flac")
	err := mockClient(t, mock).Audio.SpeakToFile(t.Context(), path, SpeechRequest{Input: "x", ResponseFormat: SpeechFormatFLAC})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "fLaC-audio" {
		t.Errorf("file holds %q", got)
	}
}

// endlessAudio serves size bytes of audio from one reused buffer, so that the server holds no
// more memory than the client is allowed to.
func endlessAudio(size int64) *httptest.Server {
	chunk := bytes.Repeat([]byte{0x55}, 64<<10)
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "audio/pcm")
		w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
		for sent := int64(0); sent < size; sent += int64(len(chunk)) {
			if _, err := w.Write(chunk[:min(int64(len(chunk)), size-sent)]); err != nil {
				return
			}
		}
	}))
}

// BenchmarkSpeech200MiB reads 200 MiB of speech. heap-MiB is the largest growth of the live heap
// seen while reading (sampled every 8 MiB): it stays flat because the body is streamed.
func BenchmarkSpeech200MiB(b *testing.B) {
	const size = 200 << 20
	srv := endlessAudio(size)
	defer srv.Close()
	client := testClient(b, srv.URL)
	buf := make([]byte, 32<<10)
	var peak uint64
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		audio, err := client.Audio.Speak(b.Context(), SpeechRequest{Input: "x", ResponseFormat: SpeechFormatPCM})
		if err != nil {
			b.Fatal(err)
		}
		var read, nextSample int64
		for {
			n, err := audio.Read(buf)
			read += int64(n)
			if read >= nextSample {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc-min(ms.HeapAlloc, base))
				nextSample += 8 << 20
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		audio.Close()
		if read != size {
			b.Fatalf("read %d bytes, want %d", read, size)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "heap-MiB")
}
