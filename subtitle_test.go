package infergate_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/infergate/infergate-go"
)

const verboseBody = `{"task":"transcribe","language":"english","duration":8.47,"text":"Hello there. General Kenobi.",
"segments":[{"id":0,"seek":0,"start":0.0,"end":3.2,"text":" Hello there.","tokens":[50364,2425,456],
"temperature":0.0,"avg_logprob":-0.21,"compression_ratio":0.9,"no_speech_prob":0.01},
{"id":1,"seek":320,"start":3.2,"end":8.47,"text":" General Kenobi.","tokens":[3332],"temperature":0.2,
"avg_logprob":-0.3,"compression_ratio":1.1,"no_speech_prob":0.02,"future_key":{"x":1}}],
"words":[{"word":"Hello","start":0.0,"end":0.5},{"word":"there","start":0.5,"end":1.1}]}`

func TestTranscriptionFormats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		format infergate.TranscriptionFormat
		body   string
		want   infergate.Transcription // Raw and Format are checked separately
	}{
		{
			name: "json is the default",
			body: `{"text":"Hello world."}`,
			want: infergate.Transcription{Text: "Hello world."},
		},
		{
			name:   "json with usage",
			format: infergate.TranscriptionFormatJSON,
			body:   `{"text":"Hi","usage":{"type":"tokens","input_tokens":14,"output_tokens":45,"total_tokens":59}}`,
			want: infergate.Transcription{Text: "Hi",
				Usage: &infergate.TranscriptionUsage{Type: "tokens", InputTokens: 14, OutputTokens: 45, TotalTokens: 59}},
		},
		{
			name:   "json answered as plain text",
			format: infergate.TranscriptionFormatJSON,
			body:   "Hello world.\n",
			want:   infergate.Transcription{Text: "Hello world.\n"},
		},
		{
			name:   "verbose_json",
			format: infergate.TranscriptionFormatVerboseJSON,
			body:   verboseBody,
			want: infergate.Transcription{
				Text: "Hello there. General Kenobi.", Language: "english", Duration: 8.47, Task: "transcribe",
				Segments: []infergate.TranscriptionSegment{
					{ID: 0, Start: 0, End: 3.2, Text: " Hello there.", Tokens: []int{50364, 2425, 456},
						AvgLogprob: -0.21, CompressionRatio: 0.9, NoSpeechProb: 0.01},
					{ID: 1, Seek: 320, Start: 3.2, End: 8.47, Text: " General Kenobi.", Tokens: []int{3332},
						Temperature: 0.2, AvgLogprob: -0.3, CompressionRatio: 1.1, NoSpeechProb: 0.02},
				},
				Words: []infergate.TranscriptionWord{{Word: "Hello", End: 0.5}, {Word: "there", Start: 0.5, End: 1.1}},
			},
		},
		{
			name:   "verbose_json with numbers as strings and nulls",
			format: infergate.TranscriptionFormatVerboseJSON,
			body:   `{"text":"x","duration":"2.5","segments":[{"id":"3","start":"0.5","end":1,"text":"x","avg_logprob":null,"seek":"n/a"}]}`,
			want: infergate.Transcription{Text: "x", Duration: 2.5,
				Segments: []infergate.TranscriptionSegment{{ID: 3, Start: 0.5, End: 1, Text: "x"}}},
		},
		{
			name:   "diarization labels",
			format: infergate.TranscriptionFormatVerboseJSON,
			body: `{"text":"a b c d","segments":[{"id":0,"start":0,"end":1,"text":"a","speaker":"SPEAKER_01"},
{"id":1,"start":1,"end":2,"text":"b","speaker_label":"B"},{"id":2,"start":2,"end":3,"text":"[SPEAKER_02]: c"},
{"id":3,"start":3,"end":4,"text":"d","speaker":2},{"id":4,"start":4,"end":5,"text":"e","speaker":{"id":7}}],
"words":[{"word":"a","start":0,"end":1,"speaker":"SPEAKER_01"}]}`,
			want: infergate.Transcription{Text: "a b c d",
				Segments: []infergate.TranscriptionSegment{
					{ID: 0, Start: 0, End: 1, Text: "a", Speaker: "SPEAKER_01"},
					{ID: 1, Start: 1, End: 2, Text: "b", Speaker: "B"},
					{ID: 2, Start: 2, End: 3, Text: "[SPEAKER_02]: c", Speaker: "SPEAKER_02"},
					{ID: 3, Start: 3, End: 4, Text: "d", Speaker: "2"},
					{ID: 4, Start: 4, End: 5, Text: "e"},
				},
				Words: []infergate.TranscriptionWord{{Word: "a", End: 1, Speaker: "SPEAKER_01"}}},
		},
		{
			name:   "text",
			format: infergate.TranscriptionFormatText,
			body:   "Hello world.\n",
			want:   infergate.Transcription{Text: "Hello world.\n"},
		},
		{
			name:   "text sent as a JSON string",
			format: infergate.TranscriptionFormatText,
			body:   `"Hello \"world\"."`,
			want:   infergate.Transcription{Text: `Hello "world".`},
		},
		{
			name:   "srt",
			format: infergate.TranscriptionFormatSRT,
			body:   "1\n00:00:00,000 --> 00:00:02,000\nSPEAKER_00: Hello\n\n2\n00:00:02,000 --> 00:00:03,500\nWorld\n\n",
			want: infergate.Transcription{
				Text: "1\n00:00:00,000 --> 00:00:02,000\nSPEAKER_00: Hello\n\n2\n00:00:02,000 --> 00:00:03,500\nWorld\n\n",
				Segments: []infergate.TranscriptionSegment{
					{ID: 1, Start: 0, End: 2, Text: "SPEAKER_00: Hello", Speaker: "SPEAKER_00"},
					{ID: 2, Start: 2, End: 3.5, Text: "World"},
				},
			},
		},
		{
			name:   "vtt",
			format: infergate.TranscriptionFormatVTT,
			body:   "WEBVTT\r\n\r\nNOTE made by a test\r\n\r\n00:00.000 --> 00:02.000 align:start\r\n<v Ana>Hello</v>\r\n",
			want: infergate.Transcription{
				Text:     "WEBVTT\r\n\r\nNOTE made by a test\r\n\r\n00:00.000 --> 00:02.000 align:start\r\n<v Ana>Hello</v>\r\n",
				Segments: []infergate.TranscriptionSegment{{ID: 1, Start: 0, End: 2, Text: "<v Ana>Hello</v>", Speaker: "Ana"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, _, seen := audioMock(t, 200, tt.body)
			got, err := client.Audio.Transcribe(context.Background(),
				infergate.TranscriptionRequest{S3PresignedURL: "https://bucket.test/a.wav", ResponseFormat: tt.format})
			if err != nil {
				t.Fatal(err)
			}
			if sent := (*seen)[0].fields["response_format"]; sent != string(tt.format) {
				t.Errorf("response_format sent = %q, want %q", sent, tt.format)
			}
			wantFormat := tt.format
			if wantFormat == "" {
				wantFormat = infergate.TranscriptionFormatJSON
			}
			if got.Format != wantFormat || string(got.Raw) != tt.body {
				t.Errorf("Format %q, Raw %q; want %q and the exact body", got.Format, got.Raw, wantFormat)
			}
			got.Format, got.Raw = "", nil
			if diff := cmp.Diff(&tt.want, got); diff != "" {
				t.Errorf("transcription (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTranscriptionBadJSON(t *testing.T) {
	t.Parallel()
	client, _, _ := audioMock(t, 200, `{"text": 42}`)
	_, err := client.Audio.Transcribe(context.Background(),
		infergate.TranscriptionRequest{S3PresignedURL: "https://bucket.test/a.wav"})
	var decodeErr *infergate.DecodeError
	if !errors.As(err, &decodeErr) || decodeErr.StatusCode != 200 || string(decodeErr.Body) != `{"text": 42}` {
		t.Fatalf("err = %v, want a *DecodeError keeping the body", err)
	}
	var apiErr *infergate.APIError
	if errors.As(err, &apiErr) {
		t.Errorf("a 200 that fails to decode is not an *APIError: %v", err)
	}
}
