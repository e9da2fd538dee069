// Package gatewaytest provides an in-memory Inference Gateway for testing
// code that uses the gateway, in the spirit of net/http/httptest.
//
// NewServer starts a fake on a loopback address that serves every route of
// the gateway under /api/v1, in the shapes the deployed gateway really sends:
// chat completions (plain and streamed, with tool calls and images), audio
// transcription, the model catalogue, rated bids, sessions and chat history;
// and the deployed gateway's other routes: embeddings (deterministic vectors,
// see Embed), text to speech (a small valid file per format, see
// SpeechAudio), billing balance and usage (in memory, see AddUsage), the
// account's API keys (access token only) and GET /health.
// Chat replies are scripted with Reply and Server.Enqueue; odd stream
// behaviour (split tool-call fragments, in-band errors, truncation, CRLF,
// tiny TCP writes) is switched on per reply with Quirks; error responses are
// injected with Server.FailNext. Every request is recorded for assertions.
//
// Everything is deterministic by default: ids come from counters and the
// clock stands still at FixedTime unless WithClock says otherwise.
package gatewaytest
