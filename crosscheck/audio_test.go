package crosscheck

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/infergate/infergate-go/gatewaytest"
)

var transcript = gatewaytest.Transcript{Language: "english", Segments: []gatewaytest.Segment{
	{Start: 0, End: 1.5, Text: "Hello there."},
	{Start: 1.5, End: 3, Text: "General Kenobi."},
}}

func transcribe(format openai.AudioResponseFormat) openai.AudioTranscriptionNewParams {
	return openai.AudioTranscriptionNewParams{
		File:           openai.File(strings.NewReader("RIFF\x00\x00\x00\x00WAVE"), "hello.wav", "audio/wav"),
		Model:          "whisper-v3-large-turbo",
		ResponseFormat: format,
		Language:       openai.String("en"),
		Temperature:    openai.Float(0.2),
	}
}

func TestTranscriptionJSON(t *testing.T) {
	srv := gatewaytest.NewServer(gatewaytest.WithTranscript(transcript))
	defer srv.Close()
	resp, err := newClient(srv).Audio.Transcriptions.New(context.Background(), transcribe(openai.AudioResponseFormatJSON))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Hello there. General Kenobi." {
		t.Errorf("text = %q", resp.Text)
	}
	req, _ := srv.LastRequest()
	wantForm := map[string]string{"model": "whisper-v3-large-turbo", "response_format": "json", "language": "en", "temperature": "0.2"}
	if diff := cmp.Diff(wantForm, req.Form); diff != "" {
		t.Errorf("form fields (-want +got):\n%s", diff)
	}
	if req.File == nil || req.File.Filename != "hello.wav" || req.File.Size != 12 {
		t.Errorf("file part = %+v", req.File)
	}
}

func TestTranscriptionVerboseJSON(t *testing.T) {
	srv := gatewaytest.NewServer(gatewaytest.WithTranscript(transcript))
	defer srv.Close()
	params := transcribe(openai.AudioResponseFormatVerboseJSON)
	params.TimestampGranularities = []string{"word", "segment"}
	resp, err := newClient(srv).Audio.Transcriptions.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	v := resp.AsTranscriptionVerbose()
	if v.Language != "english" || v.Duration != 3 || v.Text != "Hello there. General Kenobi." {
		t.Errorf("language %q, duration %v, text %q", v.Language, v.Duration, v.Text)
	}
	type seg struct {
		Start, End float64
		Text       string
	}
	var got []seg
	for _, s := range v.Segments {
		got = append(got, seg{s.Start, s.End, s.Text})
	}
	want := []seg{{0, 1.5, "Hello there."}, {1.5, 3, "General Kenobi."}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("segments (-want +got):\n%s", diff)
	}
	// openai-go sends the granularities as repeated "timestamp_granularities[]" fields, while the
	// gateway reads one comma-separated "timestamp_granularities": the words never come.
	req, _ := srv.LastRequest()
	if _, ok := req.Form["timestamp_granularities[]"]; !ok || req.Form["timestamp_granularities"] != "" {
		t.Errorf("form = %v, want the granularities under timestamp_granularities[]", req.Form)
	}
	if len(v.Words) != 0 {
		t.Errorf("got %d words; the fake must not have understood the granularities", len(v.Words))
	}
}

// TestTranscriptionPlainText covers srt, vtt and text, which the gateway answers as text/plain:
// openai-go cannot decode them into its response type, and needs WithResponseBodyInto a string.
func TestTranscriptionPlainText(t *testing.T) {
	tests := []struct {
		format openai.AudioResponseFormat
		want   string
	}{
		{openai.AudioResponseFormatSRT, "1\n00:00:00,000 --> 00:00:01,500\nHello there.\n\n2\n00:00:01,500 --> 00:00:03,000\nGeneral Kenobi.\n\n"},
		{openai.AudioResponseFormatVTT, "WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nHello there.\n\n00:00:01.500 --> 00:00:03.000\nGeneral Kenobi.\n\n"},
		{openai.AudioResponseFormatText, "Hello there. General Kenobi."},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			srv := gatewaytest.NewServer(gatewaytest.WithTranscript(transcript))
			defer srv.Close()
			client := newClient(srv)
			_, err := client.Audio.Transcriptions.New(context.Background(), transcribe(tt.format))
			if err == nil || !strings.Contains(err.Error(), "text/plain") {
				t.Errorf("decoding into the response type: err = %v, want a content-type error", err)
			}
			var body string
			if _, err := client.Audio.Transcriptions.New(context.Background(), transcribe(tt.format), option.WithResponseBodyInto(&body)); err != nil {
				t.Fatal(err)
			}
			if body != tt.want {
				t.Errorf("body = %q, want %q", body, tt.want)
			}
		})
	}
}
