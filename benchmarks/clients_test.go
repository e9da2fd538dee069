package benchmarks

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"
)

// fakeBase is the address the in-memory workloads are "served" from; nothing listens there, the
// replay transport answers instead.
const fakeBase = "http://gateway.invalid/api/v1"

// contender is one way of calling the gateway: a client library used as its documentation shows,
// or the hand-written floor. Each method runs one call of a workload.
type contender interface {
	// streamText streams a completion and collects its text, as a program printing it would.
	streamText(ctx context.Context) (streamResult, error)
	// streamTool streams a completion and reassembles the tool call with the client's own means.
	streamTool(ctx context.Context) (streamResult, error)
	// firstDelta streams a completion, calls opened once the stream is open and received as soon
	// as the first delta is in hand, and returns that delta's text after reading the rest.
	firstDelta(ctx context.Context, opened, received func()) (string, error)
	// complete asks for a non-streamed completion and returns its text.
	complete(ctx context.Context) (string, error)
	// completeCall asks for a non-streamed completion and returns its first tool call's arguments.
	completeCall(ctx context.Context) (string, error)
	// sendHistory asks for a completion with history as the conversation, built once in the
	// client's own types, and returns the answer's text.
	sendHistory(ctx context.Context) (string, error)
	// listModels reads the model catalogue and returns the models' ids.
	listModels(ctx context.Context) ([]string, error)
	// transcribe uploads audio and returns the transcript.
	transcribe(ctx context.Context, audio io.Reader) (string, error)
}

// contenderKind names a contender and builds it against a base URL and HTTP client.
type contenderKind struct {
	name  string
	build func(tb testing.TB, baseURL string, hc *http.Client) contender
}

// The contenders in the order the table shows them. The floor comes last: it is no client.
var contenders = []contenderKind{
	{"infergate", newInfergate},
	{"openai-go", newOpenAIGo},
	{"go-openai", newGoOpenAI},
	{"floor", newFloor},
}

// replayed builds a contender whose every call is answered by body.
func replayed(tb testing.TB, kind contenderKind, body []byte, contentType string) (contender, *replayTransport) {
	rt := newReplay(body, contentType)
	return kind.build(tb, fakeBase, &http.Client{Transport: rt}), rt
}

// chatPrompt is the one-message conversation every contender sends.
const (
	chatModel  = "llama-3.3-70b"
	chatPrompt = "Tell me a long story."
	sttModel   = "whisper-1"
	audioName  = "speech.mp3"
)

// callTimeout bounds every call a test makes, so that a hung client fails rather than stalls.
const callTimeout = 30 * time.Second
