//go:build unix

package crosscheck

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/infergate/infergate-go"
)

type embeddingCase struct {
	name    string
	req     infergate.EmbeddingRequest
	differs string // see chatCase.differs
}

func embeddingCases() []embeddingCase {
	texts := []string{"The cat sat on the mat.", "A dog barked."}
	return []embeddingCase{
		{name: "one text, default encoding (base64)", req: infergate.EmbeddingRequest{Model: "text-embedding-3-small", Input: texts[:1]}},
		{name: "several texts", req: infergate.EmbeddingRequest{Model: "bge-m3", Input: texts}},
		{name: "float encoding", req: infergate.EmbeddingRequest{Model: "m", Input: texts, EncodingFormat: infergate.EmbeddingFormatFloat}},
		{name: "dimensions and user", req: infergate.EmbeddingRequest{Model: "m", Input: texts, Dimensions: infergate.Ptr(256), User: "user-42"}},
		// The gateway's own field; OpenAI's embeddings body allows no extra properties.
		{name: "session_id", req: infergate.EmbeddingRequest{Model: "m", Input: texts, SessionID: "0xabc123"},
			differs: "Unknown property: session_id"},
		// The gateway picks its default embeddings model when none is named; OpenAI requires one.
		{name: "no model (the gateway chooses)", req: infergate.EmbeddingRequest{Input: texts},
			differs: "Missing required property: model"},
	}
}

// TestSteadyAcceptsEmbeddingRequests sends every kind of embeddings request the SDK builds
// through Steady.
func TestSteadyAcceptsEmbeddingRequests(t *testing.T) {
	client, proxy, _ := newSteadyClient(t)
	for _, tc := range embeddingCases() {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := client.Embeddings.Create(ctx, tc.req)
			checkVerdict(t, proxy, err, tc.differs, tc.req)
		})
	}
}

type speechCase struct {
	name    string
	req     infergate.SpeechRequest
	differs string // see chatCase.differs
}

func speechCases() []speechCase {
	cases := []speechCase{
		{name: "defaults (voice af_alloy, mp3)", req: infergate.SpeechRequest{Model: "tts-1", Input: "Hello!"}},
		{name: "voice and speed", req: infergate.SpeechRequest{Model: "kokoro", Input: "Hello!", Voice: "am_adam", Speed: infergate.Ptr(0.25)}},
		{name: "fastest", req: infergate.SpeechRequest{Model: "kokoro", Input: "Hello!", Speed: infergate.Ptr(4.0)}},
		// The gateway's own field; OpenAI's speech body allows no extra properties.
		{name: "session_id", req: infergate.SpeechRequest{Model: "tts-1", Input: "Hi", SessionID: "0xabc123"},
			differs: "Unknown property: session_id"},
		// The gateway picks its default speech model when none is named; OpenAI requires one.
		{name: "no model (the gateway chooses)", req: infergate.SpeechRequest{Input: "Hi"},
			differs: "Missing required property: model"},
	}
	for _, f := range []infergate.SpeechFormat{infergate.SpeechFormatMP3, infergate.SpeechFormatOpus, infergate.SpeechFormatAAC,
		infergate.SpeechFormatFLAC, infergate.SpeechFormatWAV, infergate.SpeechFormatPCM} {
		cases = append(cases, speechCase{name: "response_format " + string(f), req: infergate.SpeechRequest{Model: "tts-1", Input: "Hi", ResponseFormat: f}})
	}
	return cases
}

// TestSteadyAcceptsSpeechRequests sends every kind of speech request the SDK builds through
// Steady.
func TestSteadyAcceptsSpeechRequests(t *testing.T) {
	client, proxy, _ := newSteadyClient(t)
	for _, tc := range speechCases() {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := client.Audio.SpeechTo(ctx, io.Discard, tc.req)
			checkVerdict(t, proxy, err, tc.differs, tc.req)
		})
	}
}
