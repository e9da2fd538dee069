// Package infergate is the Go client for the Inference Gateway, an OpenAI-compatible gateway to AI
// models served by independent providers in a decentralized compute marketplace.
//
// Create a Client once and share it: it is safe for concurrent use by many goroutines.
//
//	client, err := infergate.NewClient() // reads INFERGATE_API_KEY, INFERGATE_BASE_URL, INFERGATE_ACCESS_TOKEN
//	resp, err := client.Chat.Create(ctx, infergate.ChatRequest{
//		Model:    "llama-3.3-70b",
//		Messages: []infergate.Message{infergate.UserMessage("Hello!")},
//	})
//
// Each API area is a service on the Client: Chat, Audio, Embeddings, Models, Bids, History,
// Sessions, Billing, Keys and Health. Beyond single calls: Chat.Stream streams an answer and
// reassembles its tool calls, Chat.RunTools runs a tool loop over typed Go functions (NewTool),
// and GenerateObject and StreamObject ask for a typed Go value. Prices and balances are Money, an
// exact decimal amount with its currency.
//
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
// # Related packages
//
// Package gatewaytest is an in-process fake gateway for tests and offline examples. Modules of
// their own keep their dependencies out of this one: otelinfergate records calls as OpenTelemetry
// spans and metrics, mcptools turns the tools of MCP servers into FuncTools, einoinfergate makes a
// client an eino chat model and embedder, lcinfergate makes it a langchaingo model, and
// genkitinfergate offers the gateway's models and embedders to firebase genkit as a plugin. The
// command cmd/infergate explores the gateway from a terminal. The repository's README and its docs/
// pages are the guide: installation, a page per topic, the compatibility promise and a page for
// users of other OpenAI clients.
package infergate
