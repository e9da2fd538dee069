// Package gatewaytest provides an in-memory Inference Gateway for testing
// code that uses the gateway, in the spirit of net/http/httptest.
//
// In a test, New(t) starts a fake on a loopback address and closes it when
// the test ends, reporting injected failures that no request used; outside
// a test (an example program, a benchmark's setup) NewServer starts one and
// Close stops it. Server.Client returns an SDK client wired to the fake, with
// millisecond retry backoff so injected failures cost no test time.
//
// The fake serves every route of the gateway under /api/v1, in the shapes the
// deployed gateway really sends: chat completions (plain and streamed, with
// tool calls and images), audio transcription, the model catalogue, rated
// bids, sessions and chat history; and the deployed gateway's other routes:
// embeddings (deterministic vectors, see Embed), text to speech (a small
// valid file per format, see SpeechAudio), billing balance and usage (in
// memory, see AddUsage), the account's API keys (access token only) and
// GET /health. Its catalogue has a model for each of these routes, and the
// chat and embeddings routes resolve a request's model against it as the
// deployed gateway does (see WithModels): a near miss is a 400 naming the
// catalogue's near names, a model of the wrong type a 400, and any other name
// is served by the route's default model, which the answer names;
// WithAnyModel serves every name as itself instead.
// Chat replies are scripted with Reply and Server.Enqueue, or made for each
// request by a standing responder (WithResponder), else DefaultAnswer says the
// fake answered (Reply.Object
// answers a request for a typed value; with nothing scripted, a request that
// forces a function gets a call with a sample of its schema, see
// SampleFromSchema); odd stream
// behaviour (split tool-call fragments, in-band errors, truncation, CRLF,
// tiny TCP writes) is switched on per reply with Quirks; error responses are
// injected with Server.FailNext and the *ErrorReply constructors; a model
// taken down with Server.SetModelDown (or WithModelDown) fails every request
// for it as the deployed gateway does, to test fallback models;
// WithRateLimits enforces the gateway's rate limits per key and model group,
// with its headers and 429s. Every request is recorded for assertions.
//
// Routes are named one way throughout: by their URL path, such as
// /api/v1/chat/completions or /health. That is what ErrorReply.On takes,
// what Request.Path reports, and how the SDK's documentation names them.
//
// Names here describe the fake's side: StoredChat and CatalogModel are what
// the fake keeps, DefaultAPIKey and WithAcceptedAPIKey are what it accepts,
// ValidationErrorReply is a reply it sends. A few types share a name with
// the root package's — Balance, StoredChat, StoredMessage, ToolCall, Usage
// and UsageRecord — and are not those types: they are what a test puts in
// the fake, in the wire's shape (amounts as decimal strings, times as the
// fake writes them), while the root package's are what a client reads back.
//
// Connect serves programs rather than tests: it returns a client of the real
// gateway when INFERGATE_API_KEY or INFERGATE_BASE_URL is set and of a fake
// otherwise, so that the examples and the infergate command run offline on a
// fresh clone; WithClientOptions gives both the same client options.
//
// OpenCassette records what the real gateway answered into a reviewable
// file and replays it offline afterwards, byte for byte, streams event by
// event and retried attempts one by one, with credentials scrubbed; a
// replaying client needs no key, and INFERGATE_RECORD=1 refreshes the
// recordings a test suite lacks.
//
// Everything is deterministic by default: ids come from counters and the
// clock stands still at FixedTime unless WithClock says otherwise.
package gatewaytest
