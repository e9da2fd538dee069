// Package infergate is the Go client for the Inference Gateway, an OpenAI-compatible gateway to AI
// models served by independent providers in a decentralized compute marketplace.
//
// Create a Client once and share it: it is safe for concurrent use by many goroutines.
//
//	client, err := infergate.NewClient() // reads INFERGATE_API_KEY and INFERGATE_BASE_URL
//	resp, err := client.Chat.Create(ctx, infergate.ChatRequest{
//		Model:    "llama-3.3-70b",
//		Messages: []infergate.Message{infergate.UserMessage("Hello!")},
//	})
//
// Each API area is a service on the Client: Chat, Audio, Embeddings, Models, Bids, History,
// Sessions, Billing, Keys and Health.
// Failed calls return an *APIError (test it with errors.Is against ErrUnauthorized, ErrRateLimited
// and the other sentinels), a call that got no response at all a *TransportError, a successful
// status whose body cannot be read a *DecodeError, and a call that outlives WithTimeout (default 10
// minutes) a *TimeoutError; requests that break the API's rules are refused before anything is sent
// with a *ValidationError.
//
// Methods that return one resource return a pointer to it (nil with an error); a list that comes
// whole is a slice of values, and one the server pages through (History.List, History.Messages,
// Billing.Usage) an iter.Seq2 of values and errors that fetches pages as it is ranged over; small
// value types (Decimal, Money) are returned as values.
//
// # Zero and negative bounds
//
// A negative bound is always refused with a *ValidationError before anything is sent (by NewClient
// for a client's options, by the call for a call's). Zero means one thing per bound:
//
//	WithTimeout                  refused: a call needs a bound (the default is DefaultTimeout)
//	WithMaxRetries               no retry
//	WithMaxRetryAfter            no Retry-After is waited out: the error is returned at once
//	WithRetryBackoff             no wait between retries
//	WithStreamTimeouts           the default (6 minutes to the first byte, 2 minutes of silence)
//	WithMaxLineSize              the default (64 MiB)
//	WithCatalogTTL               the catalogue is downloaded every time
//	WithMaxConcurrency           no bound on calls in flight
//	ToolLoop.MaxSteps            the default (10 model turns)
//	ToolLoop.Goroutines          the default (4 calls at once)
//	ToolLoop.MaxToolCalls        the default (64 calls per turn)
//	ToolLoop.MaxTokens           no token budget
//	ToolLoop.ToolTimeout         no bound on a tool call
//	ObjectSpec.MaxAttempts       the default (3 model turns)
//
// # Where things are
//
// A call flows request → pipeline → decoder → typed result:
//
//	client.go        Client, NewClient, the services
//	options.go       Option and the With* options; config.go: the configuration they build, and
//	                 derive, which gives a call passed options its own configuration
//	pipeline.go      the one request path: route, do / exchange / open, send (credentials,
//	                 idempotency key, retries, error mapping)
//	observer.go      Observer: operations, their hooks and ends, for tracing and metrics
//	middleware.go    Middleware around each HTTP attempt
//	timeout.go       WithTimeout's bound and the stream watchdog (first byte, silences)
//	errors.go        APIError, TransportError, StreamError, sentinels; errortext.go: a page's
//	                 excerpt for a message; redact.go, secret.go: what never leaks
//	response.go      ResponseInfo: status, headers and rate limits of a call
//
//	chat.go          Chat.Create and the request/answer types; message.go, content.go, encode.go:
//	                 messages and their encoding; extra.go: raw request fields
//	stream.go        Chat.Stream and ChatStream; chunk.go, chunk_fast.go: chunks and their decoder;
//	                 accumulate.go: ChatAccumulator, which folds chunks into a completion
//	tool.go          FuncTool and NewTool; tool_schema.go: NewToolFromSchema; tool_error.go,
//	                 tool_feedback.go: a failed call's error and the text the model reads;
//	                 toolrun.go: RunTools, the tool loop; toolcalls.go: a turn's calls on a pool;
//	                 runonce.go: the one run of a ToolRun or ObjectStream, which Wait may await
//	schema.go        SchemaFor: the JSON Schema of a Go type, for tools and objects; schema_types.go:
//	                 types whose JSON is not their structure (MarshalJSON, ",string");
//	                 schema_graph.go, schema_pointer.go, schema_bound.go, schema_cost.go: the checked
//	                 schema every validation goes through (cycles refused, each one's work bounded)
//	object.go        GenerateObject, typed answers; object_stream.go: StreamObject and its partial
//	                 values (internal/partialjson); object_text.go: a value found in prose
//	audio.go         Audio.Transcribe; upload.go: the multipart upload; progress.go: its progress
//	                 hook; subtitle.go: SRT/VTT; speech.go: Audio.Speak
//	embeddings.go    Embeddings.Create
//	models.go        Models: the catalogue and its cache; bids.go: Bids.Rated; bidrank.go: ranking
//	money.go         Money, an amount with its currency; decimal.go, decimal_ops.go: Decimal, the
//	                 exact amount, and its arithmetic
//	session.go, history.go, billing.go, keys.go, health.go: the other services; billing_json.go:
//	                 balances and usage records in the wire's shape
//	paginate.go      page-by-page listings
//
// internal/transport wires go-retryablehttp's retries; internal/jsonscan is the one-pass JSON
// scanner behind chunks, completions and the catalogue; internal/partialjson parses a JSON value
// as its fragments arrive; internal/sse reads event streams; internal/subtitle parses subtitles;
// internal/leakcheck finds goroutines tests leave behind. gatewaytest is an in-process fake
// gateway for tests and examples. Integrations with dependencies of their own are nested modules:
// otelinfergate (OpenTelemetry) and mcptools (MCP servers as tools). cmd/infergate is the
// command-line tool.
package infergate
