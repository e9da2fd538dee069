//go:build unix

package crosscheck

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/infergate/infergate-go"
)

type audioCase struct {
	name    string
	req     infergate.TranscriptionRequest
	differs string // see chatCase.differs
}

func audioCases() []audioCase {
	file := func(req infergate.TranscriptionRequest) infergate.TranscriptionRequest {
		req.File, req.FileName = strings.NewReader("RIFF\x24\x00\x00\x00WAVEfmt "), "hello.wav"
		if req.Model == "" {
			req.Model = "whisper-1"
		}
		return req
	}
	cases := []audioCase{
		{name: "file only", req: file(infergate.TranscriptionRequest{})},
		{name: "language, prompt and temperature", req: file(infergate.TranscriptionRequest{Language: "en", Prompt: "Infergate, Morpheus", Temperature: infergate.Ptr(0.2)})},
	}
	for _, f := range []infergate.TranscriptionFormat{infergate.TranscriptionFormatJSON, infergate.TranscriptionFormatText, infergate.TranscriptionFormatSRT, infergate.TranscriptionFormatVerboseJSON, infergate.TranscriptionFormatVTT} {
		cases = append(cases, audioCase{name: "response_format " + string(f), req: file(infergate.TranscriptionRequest{ResponseFormat: f})})
	}
	return append(cases,
		// The gateway's own form fields. OpenAI's transcription form allows no extra properties (unlike
		// its chat body), so Steady reports each one as unknown; the gateway reads them.
		audioCase{name: "session_id", req: file(infergate.TranscriptionRequest{SessionID: "0xabc123"}),
			differs: "Unknown property: session_id"},
		audioCase{name: "diarization", req: file(infergate.TranscriptionRequest{EnableDiarization: true}),
			differs: "Unknown property: enable_diarization"},
		audioCase{name: "output_content", req: file(infergate.TranscriptionRequest{OutputContent: "text"}),
			differs: "Unknown property: output_content"},
		audioCase{name: "one timestamp granularity", req: file(infergate.TranscriptionRequest{ResponseFormat: infergate.TranscriptionFormatVerboseJSON,
			TimestampGranularities: []infergate.TimestampGranularity{infergate.TimestampGranularityWord}})},
		// The gateway takes timestamp_granularities as one comma-separated value; OpenAI's form takes
		// an array, so Steady reads "word,segment" as one item that is not in the enum.
		audioCase{name: "timestamp_granularities", req: file(infergate.TranscriptionRequest{ResponseFormat: infergate.TranscriptionFormatVerboseJSON,
			TimestampGranularities: []infergate.TimestampGranularity{infergate.TimestampGranularityWord, infergate.TimestampGranularitySegment}}),
			differs: "timestamp_granularities"},
		// A pre-signed URL replaces the file on the gateway; OpenAI always requires the file.
		audioCase{name: "s3_presigned_url instead of a file", req: infergate.TranscriptionRequest{Model: "whisper-1",
			S3PresignedURL: "https://bucket.s3.amazonaws.com/a.mp3?X-Amz-Signature=abc"}, differs: "Missing required property: file"},
		// The gateway picks the model when none is named; OpenAI requires one.
		audioCase{name: "no model (the gateway chooses)", req: infergate.TranscriptionRequest{File: strings.NewReader("RIFF"), FileName: "a.wav"},
			differs: "Missing required property: model"},
	)
}

// TestSteadyAcceptsTranscriptionRequests sends every kind of transcription request the SDK builds
// through Steady.
func TestSteadyAcceptsTranscriptionRequests(t *testing.T) {
	client, proxy, _ := newSteadyClient(t)
	for _, tc := range audioCases() {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := client.Audio.Transcribe(ctx, tc.req)
			checkVerdict(t, proxy, err, tc.differs, tc.req)
		})
	}
}
