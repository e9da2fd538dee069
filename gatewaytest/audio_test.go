package gatewaytest_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"mime/multipart"
	"net/http"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/infergate/infergate-go/gatewaytest"
)

// form builds a multipart body; a field named "file" becomes a file part
// whose name is the fields' "filename" value (default a.mp3).
func form(t *testing.T, fields map[string]string) (io.Reader, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		if k == "filename" {
			continue
		}
		if k == "file" {
			name := fields["filename"]
			if name == "" {
				name = "a.mp3"
			}
			fw, err := mw.CreateFormFile("file", name)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(fw, v)
			continue
		}
		mw.WriteField(k, v)
	}
	mw.Close()
	return &buf, mw.FormDataContentType()
}

func transcribe(t *testing.T, s *gatewaytest.Server, fields map[string]string) (*http.Response, []byte) {
	t.Helper()
	body, ct := form(t, fields)
	return call(t, s, "POST", "/audio/transcriptions", gatewaytest.DefaultAPIKey, body, ct)
}

func TestTranscriptionFormats(t *testing.T) {
	two := gatewaytest.Transcript{Segments: []gatewaytest.Segment{
		{Start: 0, End: 2, Text: "Hello"},
		{Start: 2, End: 3661.5, Text: " big world", Speaker: "SPEAKER_01"},
	}}
	tests := []struct {
		name, format, gran, diarize string
		ct, want                    string
	}{
		{"default json", "", "", "", "application/json", `{"text":"Hello big world"}`},
		{"text", "text", "", "", "text/plain; charset=utf-8", "Hello big world"},
		{"srt", "srt", "", "", "text/plain; charset=utf-8",
			"1\n00:00:00,000 --> 00:00:02,000\nHello\n\n2\n00:00:02,000 --> 01:01:01,500\nbig world\n\n"},
		{"vtt", "vtt", "", "", "text/plain; charset=utf-8",
			"WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nHello\n\n00:00:02.000 --> 01:01:01.500\nbig world\n\n"},
		{"verbose", "verbose_json", "segment", "", "application/json", `{"task":"transcribe","language":"english","duration":3661.5,
			"text":"Hello big world","segments":[
			{"id":0,"seek":0,"start":0,"end":2,"text":"Hello","tokens":[1000],"temperature":0,"avg_logprob":-0.25,"compression_ratio":1.2,"no_speech_prob":0.01},
			{"id":1,"seek":0,"start":2,"end":3661.5,"text":" big world","tokens":[1000,1001],"temperature":0,"avg_logprob":-0.25,"compression_ratio":1.2,"no_speech_prob":0.01}]}`},
		{"verbose with words and speakers", "verbose_json", "word,segment", "true", "application/json", `{"task":"transcribe","language":"english","duration":3661.5,
			"text":"Hello big world","segments":[
			{"id":0,"seek":0,"start":0,"end":2,"text":"Hello","tokens":[1000],"temperature":0,"avg_logprob":-0.25,"compression_ratio":1.2,"no_speech_prob":0.01,"speaker":"SPEAKER_00"},
			{"id":1,"seek":0,"start":2,"end":3661.5,"text":" big world","tokens":[1000,1001],"temperature":0,"avg_logprob":-0.25,"compression_ratio":1.2,"no_speech_prob":0.01,"speaker":"SPEAKER_01"}],
			"words":[{"word":"Hello","start":0,"end":2},{"word":"big","start":2,"end":1831.75},{"word":"world","start":1831.75,"end":3661.5}]}`},
	}
	s := gatewaytest.New(t, gatewaytest.WithTranscript(two))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fields := map[string]string{"file": "ID3", "model": "whisper-v3-large-turbo"}
			for k, v := range map[string]string{"response_format": tt.format, "timestamp_granularities": tt.gran, "enable_diarization": tt.diarize} {
				if v != "" {
					fields[k] = v
				}
			}
			resp, body := transcribe(t, s, fields)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != tt.ct {
				t.Fatalf("%d %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			if strings.HasPrefix(tt.ct, "application/json") {
				jsonEqual(t, body, tt.want)
			} else if string(body) != tt.want {
				t.Errorf("body %q, want %q", body, tt.want)
			}
		})
	}
}

func TestTranscriptionDefaultAndSetTranscript(t *testing.T) {
	s := gatewaytest.New(t)
	_, body := transcribe(t, s, map[string]string{"file": "x", "response_format": "srt"})
	if string(body) != "1\n00:00:00,000 --> 00:00:02,000\nHello\n\n" {
		t.Errorf("default srt %q", body)
	}
	s.SetTranscript(gatewaytest.Transcript{Language: "german", Segments: []gatewaytest.Segment{{End: 1, Text: "Hallo"}}})
	_, body = transcribe(t, s, map[string]string{"s3_presigned_url": "https://bucket/x.wav", "response_format": "verbose_json"})
	if m := decode(t, body); m["language"] != "german" || m["text"] != "Hallo" {
		t.Errorf("after SetTranscript: %s", body)
	}
}

func TestTranscriptionRejections(t *testing.T) {
	s := gatewaytest.New(t)
	tests := []struct {
		name   string
		fields map[string]string
		detail string
	}{
		{"neither", map[string]string{"model": "m"}, "Either 'file' or 's3_presigned_url' must be provided"},
		{"both", map[string]string{"file": "x", "s3_presigned_url": "https://b/x.mp3"}, "Provide either 'file' or 's3_presigned_url', not both"},
		{"extension", map[string]string{"file": "x", "filename": "notes.txt"}, "Unsupported file format 'txt'. Supported formats: mp3, mp4, mpeg, mpga, m4a, wav, webm, flac, ogg, oga, opus"},
		{"format", map[string]string{"file": "x", "response_format": "xml"}, "Invalid response_format 'xml'. Must be one of: json, text, srt, verbose_json, vtt"},
		{"granularity", map[string]string{"file": "x", "timestamp_granularities": "word,char"}, "Invalid timestamp_granularities value 'char'. Allowed: word, segment"},
		{"temperature", map[string]string{"file": "x", "temperature": "1.5"}, "temperature must be a number from 0.0 to 1.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := transcribe(t, s, tt.fields)
			if resp.StatusCode != 400 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			if got := decode(t, body)["detail"]; got != tt.detail {
				t.Errorf("detail %q", got)
			}
		})
	}
	t.Run("json body", func(t *testing.T) {
		resp, body := send(t, s, "POST", "/audio/transcriptions", map[string]any{"s3_presigned_url": "https://b/x.mp3"})
		if resp.StatusCode != 400 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		jsonEqual(t, body, `{"detail":"Either 'file' or 's3_presigned_url' must be provided"}`)
	})
	t.Run("extensions accepted", func(t *testing.T) {
		for _, ext := range []string{"mp3", "MP4", "mpeg", "mpga", "m4a", "wav", "webm", "flac", "OGG", "oga", "opus"} {
			if resp, body := transcribe(t, s, map[string]string{"file": "x", "filename": "a." + ext}); resp.StatusCode != 200 {
				t.Errorf("%s: %d %s", ext, resp.StatusCode, body)
			}
		}
	})
}

func TestTranscriptionRecordsUpload(t *testing.T) {
	s := gatewaytest.New(t)
	transcribe(t, s, map[string]string{"file": "RIFF....WAVE", "filename": "clip.wav", "language": "en", "timestamp_granularities": "word,segment"})
	r, _ := s.LastRequest()
	sum := sha256.Sum256([]byte("RIFF....WAVE"))
	want := &gatewaytest.UploadedFile{Filename: "clip.wav", Size: 12, SHA256: hex.EncodeToString(sum[:])}
	if !reflect.DeepEqual(r.File, want) {
		t.Errorf("File = %+v, want %+v", r.File, want)
	}
	if !reflect.DeepEqual(r.Form, map[string]string{"language": "en", "timestamp_granularities": "word,segment"}) {
		t.Errorf("Form = %v", r.Form)
	}
	if r.Body != nil {
		t.Errorf("multipart body was kept: %d bytes", len(r.Body))
	}
}

// zeros is an endless, allocation-free source of audio bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestTranscriptionStreamsLargeUpload(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads 200 MiB")
	}
	const size = 200 << 20
	s := gatewaytest.New(t)
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	want := sha256.New()
	go func() {
		fw, err := mw.CreateFormFile("file", "big.wav")
		if err == nil {
			_, err = io.Copy(io.MultiWriter(fw, want), io.LimitReader(zeros{}, size))
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	resp, body := call(t, s, "POST", "/audio/transcriptions", gatewaytest.DefaultAPIKey, pr, mw.FormDataContentType())
	runtime.ReadMemStats(&after)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	// Client and server together; buffering the file would cost 200 MiB.
	grew := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d KiB during a %d MiB upload", grew>>10, size>>20)
	if grew > 32<<20 {
		t.Errorf("allocated %d MiB for a %d MiB upload", grew>>20, size>>20)
	}
	r, _ := s.LastRequest()
	if r.File == nil || r.File.Size != size || r.File.SHA256 != hex.EncodeToString(want.Sum(nil)) {
		t.Errorf("File = %+v", r.File)
	}
}
