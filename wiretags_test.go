package infergate_test

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/infergate/infergate-go"
)

// Stored JSON of the request and answer types keeps the wire's names, as their neighbours do: a
// type marshalled with Go field names would change shape the day a field is renamed. Raw bodies and
// Extra fields are never marshalled.
func TestTypesMarshalWithWireNames(t *testing.T) {
	t.Parallel()
	dims, speed := 256, 1.25
	for _, tc := range []struct {
		name string
		v    any
		keys []string
	}{
		{"Transcription", infergate.Transcription{Text: "hi", Language: "english", Duration: 1.5, Task: "transcribe",
			Segments: []infergate.TranscriptionSegment{{}}, Words: []infergate.TranscriptionWord{{}},
			Usage: &infergate.TranscriptionUsage{}, Format: infergate.TranscriptionFormatVerboseJSON, Raw: []byte(`{"text":"hi"}`)},
			[]string{"duration", "format", "language", "segments", "task", "text", "usage", "words"}},
		{"TranscriptionSegment", infergate.TranscriptionSegment{ID: 1, Start: 0.5, End: 1, Text: "hi", Speaker: "A", Seek: 1,
			Tokens: []int{1}, Temperature: 0.2, AvgLogprob: -0.3, CompressionRatio: 1.1, NoSpeechProb: 0.01},
			[]string{"avg_logprob", "compression_ratio", "end", "id", "no_speech_prob", "seek", "speaker", "start", "temperature", "text", "tokens"}},
		{"TranscriptionWord", infergate.TranscriptionWord{Word: "hi", Start: 0.5, End: 1, Speaker: "A"},
			[]string{"end", "speaker", "start", "word"}},
		{"EmbeddingRequest", infergate.EmbeddingRequest{Model: "bge-m3", Input: []string{"a"}, EncodingFormat: infergate.EmbeddingFormatFloat,
			Dimensions: &dims, User: "u", SessionID: "s", Extra: map[string]any{"x": 1}},
			[]string{"dimensions", "encoding_format", "input", "model", "session_id", "user"}},
		{"SpeechRequest", infergate.SpeechRequest{Input: "hi", Model: "tts-1", Voice: "af_bella", ResponseFormat: infergate.SpeechFormatWAV,
			Speed: &speed, SessionID: "s", Extra: map[string]any{"lang_code": "a"}},
			[]string{"input", "model", "response_format", "session_id", "speed", "voice"}},
		{"SessionOptions", infergate.SessionOptions{Duration: time.Hour, DirectPayment: true, Failover: true},
			[]string{"directPayment", "failover", "sessionDuration"}},
	} {
		b, err := json.Marshal(tc.v)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(tc.keys, slices.Sorted(maps.Keys(m))); diff != "" {
			t.Errorf("%s marshals as %s; keys (-want +got):\n%s", tc.name, b, diff)
		}
	}

	in := infergate.SessionOptions{Duration: 90 * time.Minute, Failover: true}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var back infergate.SessionOptions
	if err := json.Unmarshal(b, &back); err != nil || back != in || string(b) != `{"sessionDuration":5400,"directPayment":false,"failover":true}` {
		t.Errorf("SessionOptions %s read back as %+v, %v", b, back, err)
	}
}
