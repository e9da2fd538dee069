package infergate_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

const (
	audioBase = "https://gw.test/api/v1"
	audioURL  = audioBase + "/audio/transcriptions"
	audioKey  = "sk-audio-test-key"
)

// receivedUpload is what a server saw of one transcription request.
type receivedUpload struct {
	method, path, auth, contentType string
	contentLength                   int64
	fields                          map[string]string
	fileName, fileType              string
	fileSize                        int64
	fileSHA                         string // hex sha256 of the file part; empty without one
}

// readUpload reads a multipart request, streaming the file part through a hash so that large
// uploads cost no memory.
func readUpload(r *http.Request) (receivedUpload, error) {
	got := receivedUpload{method: r.Method, path: r.URL.Path, auth: r.Header.Get("Authorization"),
		contentType: r.Header.Get("Content-Type"), contentLength: r.ContentLength, fields: map[string]string{}}
	mediaType, params, err := mime.ParseMediaType(got.contentType)
	if err != nil || mediaType != "multipart/form-data" {
		return got, errors.New("not multipart/form-data: " + got.contentType)
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		if part.FormName() == "file" {
			h := sha256.New()
			got.fileName, got.fileType = part.FileName(), part.Header.Get("Content-Type")
			if got.fileSize, err = io.Copy(h, part); err != nil {
				return got, err
			}
			got.fileSHA = hex.EncodeToString(h.Sum(nil))
			continue
		}
		value, err := io.ReadAll(part)
		if err != nil {
			return got, err
		}
		if _, dup := got.fields[part.FormName()]; dup {
			return got, errors.New("field sent twice: " + part.FormName())
		}
		got.fields[part.FormName()] = string(value)
	}
}

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// audioMock returns a client whose one mock transport answers transcriptions with status and body,
// recording each request.
func audioMock(t *testing.T, status int, body string, opts ...infergate.Option) (*infergate.Client, *httpmock.MockTransport, *[]receivedUpload) {
	t.Helper()
	mock := httpmock.NewMockTransport()
	var mu sync.Mutex
	var seen []receivedUpload
	mock.RegisterResponder(http.MethodPost, audioURL, func(r *http.Request) (*http.Response, error) {
		got, err := readUpload(r)
		if err != nil {
			t.Errorf("reading upload: %v", err)
		}
		mu.Lock()
		seen = append(seen, got)
		mu.Unlock()
		resp := httpmock.NewStringResponse(status, body)
		resp.Header.Set("X-Request-Id", "ab12cd34")
		return resp, nil
	})
	opts = append([]infergate.Option{infergate.WithAPIKey(audioKey), infergate.WithHTTPClient(&http.Client{Transport: mock})}, opts...)
	return testClient(t, audioBase, opts...), mock, &seen
}

func TestTranscribeSendsForm(t *testing.T) {
	t.Parallel()
	audio := []byte("RIFF....WAVEfmt fake audio bytes")
	tests := []struct {
		name       string
		clientOpts []infergate.Option
		req        infergate.TranscriptionRequest
		wantFields map[string]string
		wantFile   string // the file name, "" when no file is sent
		wantType   string
	}{
		{
			name:       "URL only",
			req:        infergate.TranscriptionRequest{S3PresignedURL: "https://bucket.test/a.mp3?sig=1"},
			wantFields: map[string]string{"s3_presigned_url": "https://bucket.test/a.mp3?sig=1"},
		},
		{
			name: "every field with a file",
			req: infergate.TranscriptionRequest{
				File: bytes.NewReader(audio), FileName: "talk.WAV", Model: "whisper-large-v3",
				Language: "en", Prompt: "Morpheus, infergate", ResponseFormat: infergate.TranscriptionFormatVerboseJSON,
				Temperature:            infergate.Ptr(0.0),
				TimestampGranularities: []infergate.TimestampGranularity{infergate.TimestampGranularityWord, infergate.TimestampGranularitySegment},
				EnableDiarization:      true, OutputContent: "transcript", SessionID: "0xsession",
			},
			wantFields: map[string]string{
				"model": "whisper-large-v3", "language": "en", "prompt": "Morpheus, infergate",
				"response_format": "verbose_json", "temperature": "0", "timestamp_granularities": "word,segment",
				"enable_diarization": "true", "output_content": "transcript", "session_id": "0xsession",
			},
			wantFile: "talk.WAV", wantType: "audio/wav",
		},
		{
			name:       "client session used when the request names none",
			clientOpts: []infergate.Option{infergate.WithSessionID("0xclient")},
			req:        infergate.TranscriptionRequest{File: strings.NewReader(string(audio)), FileName: "a.mp3", Temperature: infergate.Ptr(0.35)},
			wantFields: map[string]string{"session_id": "0xclient", "temperature": "0.35"},
			wantFile:   "a.mp3", wantType: "audio/mpeg",
		},
		{
			name:       "request session wins over the client's",
			clientOpts: []infergate.Option{infergate.WithSessionID("0xclient")},
			req:        infergate.TranscriptionRequest{S3PresignedURL: "https://bucket.test/b", SessionID: "0xmine"},
			wantFields: map[string]string{"s3_presigned_url": "https://bucket.test/b", "session_id": "0xmine"},
		},
		{
			name:       "quotes in the file name are escaped",
			req:        infergate.TranscriptionRequest{File: bytes.NewReader(audio), FileName: `my "best" take.m4a`},
			wantFields: map[string]string{},
			wantFile:   `my "best" take.m4a`, wantType: "audio/mp4",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, _, seen := audioMock(t, 200, `{"text":"ok"}`, tt.clientOpts...)
			if _, err := client.Audio.Transcribe(context.Background(), tt.req); err != nil {
				t.Fatal(err)
			}
			if len(*seen) != 1 {
				t.Fatalf("server saw %d requests, want 1", len(*seen))
			}
			got := (*seen)[0]
			if got.method != http.MethodPost || got.path != "/api/v1/audio/transcriptions" {
				t.Errorf("request line = %s %s", got.method, got.path)
			}
			if got.auth != "Bearer "+audioKey {
				t.Errorf("Authorization = %q", got.auth)
			}
			if !strings.HasPrefix(got.contentType, "multipart/form-data; boundary=") {
				t.Errorf("Content-Type = %q", got.contentType)
			}
			if diff := cmp.Diff(tt.wantFields, got.fields); diff != "" {
				t.Errorf("form fields (-want +got):\n%s", diff)
			}
			if got.fileName != tt.wantFile || got.fileType != tt.wantType {
				t.Errorf("file part = %q (%s), want %q (%s)", got.fileName, got.fileType, tt.wantFile, tt.wantType)
			}
			if tt.wantFile != "" && got.fileSHA != sha(audio) {
				t.Errorf("file bytes differ: %d bytes received", got.fileSize)
			}
		})
	}
}

func TestTranscribeValidation(t *testing.T) {
	t.Parallel()
	file := func() io.Reader { return strings.NewReader("x") }
	tests := []struct {
		name      string
		req       infergate.TranscriptionRequest
		wantField string
	}{
		{"neither file nor URL", infergate.TranscriptionRequest{Model: "m"}, "File"},
		{"both file and URL", infergate.TranscriptionRequest{File: file(), FileName: "a.mp3", S3PresignedURL: "https://b/x"}, "File"},
		{"file without a name", infergate.TranscriptionRequest{File: file()}, "FileName"},
		{"empty file", infergate.TranscriptionRequest{File: strings.NewReader(""), FileName: "a.flac"}, "File"},
		{"file read to its end", infergate.TranscriptionRequest{File: readToEnd(t), FileName: "a.ogg"}, "File"},
		{"directory", infergate.TranscriptionRequest{File: openDir(t)}, "File"},
		{"unknown format", infergate.TranscriptionRequest{S3PresignedURL: "https://b/x", ResponseFormat: "xml"}, "ResponseFormat"},
		{"temperature below 0", infergate.TranscriptionRequest{S3PresignedURL: "https://b/x", Temperature: infergate.Ptr(-0.1)}, "Temperature"},
		{"temperature above 1", infergate.TranscriptionRequest{S3PresignedURL: "https://b/x", Temperature: infergate.Ptr(1.5)}, "Temperature"},
		{"granularities without verbose_json", infergate.TranscriptionRequest{S3PresignedURL: "https://b/x",
			TimestampGranularities: []infergate.TimestampGranularity{infergate.TimestampGranularityWord}}, "TimestampGranularities"},
		{"unknown granularity", infergate.TranscriptionRequest{S3PresignedURL: "https://b/x", ResponseFormat: infergate.TranscriptionFormatVerboseJSON,
			TimestampGranularities: []infergate.TimestampGranularity{"sentence"}}, "TimestampGranularities"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, mock, _ := audioMock(t, 200, `{"text":"never"}`)
			_, err := client.Audio.Transcribe(context.Background(), tt.req)
			var verr *infergate.ValidationError
			if !errors.As(err, &verr) || verr.Field != tt.wantField {
				t.Fatalf("err = %v, want a ValidationError on %s", err, tt.wantField)
			}
			if n := mock.GetTotalCallCount(); n != 0 {
				t.Errorf("%d requests sent for an invalid request", n)
			}
		})
	}
}

// readToEnd is a reader with bytes, all of them already read.
func readToEnd(t *testing.T) io.Reader {
	r := bytes.NewReader([]byte("audio"))
	if _, err := io.Copy(io.Discard, r); err != nil {
		t.Fatal(err)
	}
	return r
}

// openDir opens a directory named like an audio file.
func openDir(t *testing.T) *os.File {
	dir := filepath.Join(t.TempDir(), "songs.mp3")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestTranscribeAudioFormats sends every format to the server, which decides what it reads, each
// with the Content-Type of its extension.
func TestTranscribeAudioFormats(t *testing.T) {
	t.Parallel()
	for name, wantType := range map[string]string{
		"a.mp3": "audio/mpeg", "a.mpga": "audio/mpeg", "a.m4a": "audio/mp4", "a.wav": "audio/wav", "a.webm": "audio/webm",
		"a.ogg": "audio/ogg", "A.OGG": "audio/ogg", "a.oga": "audio/ogg", "voice.opus": "audio/opus", "a.flac": "audio/flac",
		"a.aac": "audio/aac", "a.aiff": "audio/aiff", "recording": "application/octet-stream", "notes.xyz": "application/octet-stream",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			client, _, seen := audioMock(t, 200, `{"text":"hi"}`)
			if _, err := client.Audio.Transcribe(context.Background(), infergate.TranscriptionRequest{
				File: strings.NewReader("audio bytes"), FileName: name}); err != nil {
				t.Fatal(err)
			}
			if len(*seen) != 1 {
				t.Fatalf("%d requests, want 1", len(*seen))
			}
			if got := (*seen)[0]; got.fileName != name || got.fileType != wantType {
				t.Errorf("file part %q of type %q, want %q of type %q", got.fileName, got.fileType, name, wantType)
			}
		})
	}
}

// TestTranscribeLetsTheServerDecide sends formats to a Whisper-style fake gateway: it reads opus,
// and refuses a text file itself.
func TestTranscribeLetsTheServerDecide(t *testing.T) {
	t.Parallel()
	client := gatewaytest.New(t).Client()
	if _, err := client.Audio.Transcribe(context.Background(), infergate.TranscriptionRequest{
		File: strings.NewReader("OggS opus"), FileName: "voice.opus"}); err != nil {
		t.Errorf("opus: %v", err)
	}
	_, err := client.Audio.Transcribe(context.Background(), infergate.TranscriptionRequest{
		File: strings.NewReader("minutes"), FileName: "notes.txt"})
	var apiErr *infergate.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest || !strings.Contains(apiErr.Message, "Unsupported file format 'txt'") {
		t.Errorf("txt: err = %v, want the server's 400", err)
	}
}

func TestTranscribeFileRefusesWhatIsNoRecording(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.flac")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "takes.ogg")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{empty: "is empty", folder: "takes.ogg is a directory"} {
		client, mock, _ := audioMock(t, 200, `{"text":"never"}`)
		_, err := client.Audio.TranscribeFile(context.Background(), path, infergate.TranscriptionRequest{})
		var verr *infergate.ValidationError
		if !errors.As(err, &verr) || verr.Field != "File" || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want a File *ValidationError saying %q", path, err, want)
		}
		if n := mock.GetTotalCallCount(); n != 0 {
			t.Errorf("%s: %d requests sent", path, n)
		}
	}
}

func TestTranscribeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		status      int
		body        string
		wantStatus  int
		wantMessage string
		wantType    string
		is          error
	}{
		{"neither file nor URL (400)", 400, `{"detail":"Either 'file' or 's3_presigned_url' must be provided"}`,
			400, "Either 'file' or 's3_presigned_url' must be provided", "", nil},
		{"validation (422)", 422, `{"detail":[{"type":"float_parsing","loc":["body","temperature"],"msg":"Input should be a valid number","input":"hot"}]}`,
			422, "body.temperature: Input should be a valid number", "", nil},
		{"error object", 401, `{"error":{"message":"Invalid API key","type":"authentication_error"}}`,
			401, "Invalid API key", "authentication_error", infergate.ErrUnauthorized},
		{"error inside a 200", 200, `{"error":{"message":"provider failed","type":"provider_error"}}`,
			200, "provider failed", "provider_error", nil},
		{"error text inside a 200", 200, `{"error":"no transcription provider available"}`,
			200, "no transcription provider available", "", nil},
		{"server failure", 502, `<html><title>502 Bad Gateway</title></html>`, 502, "502 Bad Gateway", "", infergate.ErrServer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, mock, _ := audioMock(t, tt.status, tt.body)
			got, err := client.Audio.Transcribe(context.Background(),
				infergate.TranscriptionRequest{File: strings.NewReader("abc"), FileName: "a.wav"})
			var apiErr *infergate.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v (transcription %+v), want an *APIError", err, got)
			}
			if apiErr.StatusCode != tt.wantStatus || apiErr.Message != tt.wantMessage || apiErr.Type != tt.wantType {
				t.Errorf("APIError = %d %q %q, want %d %q %q", apiErr.StatusCode, apiErr.Message, apiErr.Type,
					tt.wantStatus, tt.wantMessage, tt.wantType)
			}
			if apiErr.RequestID != "ab12cd34" || string(apiErr.Body) != tt.body {
				t.Errorf("APIError lost the request id %q or body %q", apiErr.RequestID, apiErr.Body)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.is)
			}
			if strings.Contains(err.Error(), audioKey) {
				t.Error("the API key leaked into the error")
			}
			if n := mock.GetTotalCallCount(); n != 1 {
				t.Errorf("%d calls, want 1", n)
			}
		})
	}
}

// recordingHandler keeps log records so that tests can look at what the client warned about.
type recordingHandler struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *recordingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r)
	return nil
}
func (h *recordingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordingHandler) WithGroup(string) slog.Handler      { return h }

func TestTranscribeWarnsAboutLargeFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		size     int64
		wantWarn bool
	}{
		{"25 MiB exactly", infergate.LargeUploadSize, false},
		{"one byte over", infergate.LargeUploadSize + 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := sparseAudio(t, tt.size)
			logs := &recordingHandler{}
			client, _, seen := audioMock(t, 200, `{"text":"long"}`, infergate.WithLogger(slog.New(logs)))
			if _, err := client.Audio.TranscribeFile(context.Background(), path, infergate.TranscriptionRequest{}); err != nil {
				t.Fatal(err)
			}
			if got := (*seen)[0].fileSize; got != tt.size {
				t.Errorf("server received %d bytes, want %d", got, tt.size)
			}
			var warned bool
			for _, r := range logs.records {
				if r.Level == slog.LevelWarn && strings.Contains(r.Message, "S3PresignedURL") {
					warned = true
				}
			}
			if warned != tt.wantWarn {
				t.Errorf("warned = %v, want %v (records: %v)", warned, tt.wantWarn, logs.records)
			}
		})
	}
}

// sparseAudio creates a .wav file of the given size that takes no disk space.
func sparseAudio(t testing.TB, size int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "long.wav")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTranscribeFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "meeting.mp3")
	if err := os.WriteFile(path, []byte("ID3 fake mp3"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		path     string
		req      infergate.TranscriptionRequest
		wantName string
		wantErr  bool
	}{
		{name: "named after the file", path: path, wantName: "meeting.mp3"},
		{name: "FileName kept", path: path, req: infergate.TranscriptionRequest{FileName: "renamed.webm"}, wantName: "renamed.webm"},
		{name: "missing file", path: filepath.Join(dir, "absent.mp3"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, mock, seen := audioMock(t, 200, `{"text":"hi"}`)
			got, err := client.Audio.TranscribeFile(context.Background(), tt.path, tt.req)
			if tt.wantErr {
				if !errors.Is(err, os.ErrNotExist) || mock.GetTotalCallCount() != 0 {
					t.Fatalf("err = %v after %d calls, want a not-exist error before any call", err, mock.GetTotalCallCount())
				}
				return
			}
			if err != nil || got.Text != "hi" {
				t.Fatalf("TranscribeFile = %+v, %v", got, err)
			}
			if r := (*seen)[0]; r.fileName != tt.wantName || r.fileSHA != sha([]byte("ID3 fake mp3")) {
				t.Errorf("uploaded %q (%d bytes), want %q", r.fileName, r.fileSize, tt.wantName)
			}
		})
	}
}
