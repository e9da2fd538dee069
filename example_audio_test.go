package infergate_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// audioGateway is a fake gateway that transcribes any audio as the same two segments.
func audioGateway() *gatewaytest.Server {
	return gatewaytest.NewServer(gatewaytest.WithTranscript(gatewaytest.Transcript{Segments: []gatewaytest.Segment{
		{Start: 0, End: 2, Text: "Hello", Speaker: "SPEAKER_00"},
		{Start: 2, End: 3.5, Text: "world", Speaker: "SPEAKER_01"},
	}}))
}

func ExampleAudioService_Transcribe() {
	gateway := audioGateway()
	defer gateway.Close()
	client := gateway.Client()

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
	gateway := audioGateway()
	defer gateway.Close()
	client := gateway.Client()

	// Any io.Reader can be uploaded; FileName's extension tells the server the audio format (and sets
	// the part's Content-Type).
	t, err := client.Audio.Transcribe(context.Background(), infergate.TranscriptionRequest{
		File:           strings.NewReader("...audio bytes..."),
		FileName:       "clip.wav",
		ResponseFormat: infergate.TranscriptionFormatSRT,
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
	// 2: 2.0s-3.5s world
}

func ExampleAudioService_Transcribe_diarization() {
	gateway := audioGateway()
	defer gateway.Close()
	client := gateway.Client()

	t, err := client.Audio.Transcribe(context.Background(), infergate.TranscriptionRequest{
		S3PresignedURL:         "https://bucket.example/interview.m4a?X-Amz-Signature=...",
		ResponseFormat:         infergate.TranscriptionFormatVerboseJSON,
		TimestampGranularities: []infergate.TimestampGranularity{infergate.TimestampGranularitySegment},
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
	gateway := audioGateway()
	defer gateway.Close()
	client := gateway.Client()
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

func ExampleTranscriptionRequest_progress() {
	gateway := audioGateway()
	defer gateway.Close()
	client := gateway.Client()

	audio := strings.NewReader(strings.Repeat("a", 100_000)) // a file of known size: Total is set
	var last infergate.UploadProgress
	_, err := client.Audio.Transcribe(context.Background(), infergate.TranscriptionRequest{
		File:     audio,
		FileName: "long.wav",
		// Called from the goroutine that sends the body, after every read of File. A progress bar
		// would redraw here; a retry starts again at Sent 0 with the next Attempt.
		Progress: func(p infergate.UploadProgress) { last = p },
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("attempt %d: %d of %d bytes sent\n", last.Attempt, last.Sent, last.Total)
	// Output: attempt 1: 100000 of 100000 bytes sent
}
