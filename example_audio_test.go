package infergate_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/infergate/infergate-go"
)

// exampleAudioGateway stands in for the gateway: it answers in the format the form asks for.
func exampleAudioGateway() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, `{"detail":"Either 'file' or 's3_presigned_url' must be provided"}`, http.StatusBadRequest)
			return
		}
		switch r.FormValue("response_format") {
		case "srt":
			io.WriteString(w, "1\n00:00:00,000 --> 00:00:02,000\nHello\n\n2\n00:00:02,000 --> 00:00:03,500\nWorld\n\n")
		case "verbose_json":
			io.WriteString(w, `{"task":"transcribe","language":"english","duration":3.5,"text":"Hello world",`+
				`"segments":[{"id":0,"start":0,"end":2,"text":"Hello","speaker":"SPEAKER_00"},`+
				`{"id":1,"start":2,"end":3.5,"text":" world","speaker":"SPEAKER_01"}]}`)
		default:
			io.WriteString(w, `{"text":"Hello world"}`)
		}
	}))
}

func ExampleAudioService_Transcribe() {
	gateway := exampleAudioGateway()
	defer gateway.Close()
	client, err := infergate.NewClient(infergate.WithBaseURL(gateway.URL), infergate.WithAPIKey("sk-example"))
	if err != nil {
		log.Fatal(err)
	}

	// Audio in object storage is transcribed from its pre-signed URL; nothing is uploaded.
	t, err := client.Audio.Transcribe(context.Background(), infergate.TranscriptionRequest{
		S3PresignedURL: "https://bucket.example/meeting.mp3?X-Amz-Signature=...",
		Language:       "en",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(t.Text)
	// Output: Hello world
}

func ExampleAudioService_Transcribe_subtitles() {
	gateway := exampleAudioGateway()
	defer gateway.Close()
	client, err := infergate.NewClient(infergate.WithBaseURL(gateway.URL), infergate.WithAPIKey("sk-example"))
	if err != nil {
		log.Fatal(err)
	}

	// Any io.Reader can be uploaded; FileName's extension tells the gateway the audio format.
	t, err := client.Audio.Transcribe(context.Background(), infergate.TranscriptionRequest{
		File:           strings.NewReader("...audio bytes..."),
		FileName:       "clip.wav",
		ResponseFormat: infergate.TranscriptionSRT,
	})
	if err != nil {
		log.Fatal(err)
	}
	// The subtitles are in Text as sent, and parsed into Segments (times in seconds).
	for _, s := range t.Segments {
		fmt.Printf("%d: %.1fs-%.1fs %s\n", s.ID, s.Start, s.End, s.Text)
	}
	// Output:
	// 1: 0.0s-2.0s Hello
	// 2: 2.0s-3.5s World
}

func ExampleAudioService_Transcribe_diarization() {
	gateway := exampleAudioGateway()
	defer gateway.Close()
	client, err := infergate.NewClient(infergate.WithBaseURL(gateway.URL), infergate.WithAPIKey("sk-example"))
	if err != nil {
		log.Fatal(err)
	}

	t, err := client.Audio.Transcribe(context.Background(), infergate.TranscriptionRequest{
		S3PresignedURL:         "https://bucket.example/interview.m4a?X-Amz-Signature=...",
		ResponseFormat:         infergate.TranscriptionVerboseJSON,
		TimestampGranularities: []infergate.TimestampGranularity{infergate.GranularitySegment},
		EnableDiarization:      true,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s, %.1f seconds\n", t.Language, t.Duration)
	for _, s := range t.Segments {
		fmt.Printf("[%s] %s\n", s.Speaker, strings.TrimSpace(s.Text))
	}
	// Output:
	// english, 3.5 seconds
	// [SPEAKER_00] Hello
	// [SPEAKER_01] world
}

func ExampleAudioService_TranscribeFile() {
	gateway := exampleAudioGateway()
	defer gateway.Close()
	client, err := infergate.NewClient(infergate.WithBaseURL(gateway.URL), infergate.WithAPIKey("sk-example"))
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "audio")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "memo.m4a")
	if err := os.WriteFile(path, []byte("...audio bytes..."), 0o600); err != nil {
		log.Fatal(err)
	}

	// The file is streamed from disk with an exact Content-Length, and retried like any call.
	t, err := client.Audio.TranscribeFile(context.Background(), path, infergate.TranscriptionRequest{Model: "whisper-1"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(t.Text)
	// Output: Hello world
}
