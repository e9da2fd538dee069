// Transcribe turns an audio file into subtitles and writes them next to it, as an .srt file.
//
//	go run ./examples/transcribe [audio.mp3|.m4a|.wav|.webm|.flac|.ogg|.opus|...]
//
// Without an argument it writes a one-second tone to a temporary WAV file and transcribes that. It
// talks to the gateway at INFERGATE_BASE_URL (else the real one) when INFERGATE_API_KEY or
// INFERGATE_BASE_URL is set, and otherwise to an in-process fake.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// fake is the transcript the fake gateway hears in any audio.
var fake = []gatewaytest.ServerOption{gatewaytest.WithTranscript(gatewaytest.Transcript{Segments: []gatewaytest.Segment{
	{Start: 0, End: 0.6, Text: "This is a test."},
	{Start: 0.6, End: 1, Text: "Only a test."},
}})}

func main() {
	client, stop, err := gatewaytest.Connect(os.Stdout, os.Getenv, fake...)
	if err != nil {
		log.Fatal(err)
	}
	err = run(context.Background(), os.Stdout, client, os.Args[1:]...)
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

// run transcribes the audio file named by args, or a generated tone when there is none.
func run(ctx context.Context, out io.Writer, client *infergate.Client, args ...string) error {
	audio := ""
	if len(args) > 0 {
		audio = args[0]
	} else {
		dir, err := os.MkdirTemp("", "transcribe")
		if err != nil {
			return err
		}
		audio = filepath.Join(dir, "tone.wav")
		if err := writeTone(audio); err != nil {
			return err
		}
	}
	// The file is streamed from disk, not loaded; the gateway picks a transcription model.
	t, err := client.Audio.TranscribeFile(ctx, audio, infergate.TranscriptionRequest{
		ResponseFormat: infergate.TranscriptionFormatSRT,
	})
	if err != nil {
		return err
	}
	for _, s := range t.Segments {
		fmt.Fprintf(out, "%.1fs-%.1fs %s\n", s.Start, s.End, s.Text)
	}
	// For srt, Text is the subtitle file exactly as the gateway sent it.
	srt := strings.TrimSuffix(audio, filepath.Ext(audio)) + ".srt"
	if err := os.WriteFile(srt, []byte(t.Text), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(out, "wrote", srt)
	return nil
}
