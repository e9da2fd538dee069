package batch

import (
	"encoding/json"
	"time"

	infergate "github.com/infergate/infergate-go"
)

// Request is one line of an input file, an OpenAI batch request: POST to a chat completions or
// embeddings URL ("/v1/chat/completions", "/v1/embeddings", or their "/api/v1/..." spellings) with
// the request's JSON body.
type Request struct {
	CustomID string          `json:"custom_id"` // names the request's result; unique in the file
	Method   string          `json:"method"`    // "POST"
	URL      string          `json:"url"`       // the route
	Body     json.RawMessage `json:"body"`      // the request's body, a JSON object
}

// Result is one line of an output file, an OpenAI batch result. A request the gateway answered has
// a Response (whatever its status); one that got no answer (a transport failure, a request the
// client refused) has an Error instead.
type Result struct {
	ID       string       `json:"id"`        // "batch_req_" and 26 random characters
	CustomID string       `json:"custom_id"` // the request's
	Response *Response    `json:"response"`  // the answer; nil when there was none
	Error    *ResultError `json:"error"`     // why there was no answer; nil when there was one
}

// Response is the gateway's answer to one request.
type Response struct {
	StatusCode int             `json:"status_code"` // the HTTP status; a 429 only once the run stopped pausing for it
	RequestID  string          `json:"request_id"`  // the gateway's X-Request-Id
	Body       json.RawMessage `json:"body"`        // the answer (see the package's documentation)
}

// ResultError is why a request has no answer.
type ResultError struct {
	// Code is "transport_error" (no connection, or one that broke), "timeout" (the client's
	// WithTimeout), "invalid_response" (a 2xx whose body the client could not read),
	// "invalid_request" (a request the client refused) or "request_failed".
	Code    string `json:"code"`
	Message string `json:"message"` // the client's error, credentials redacted
}

// Job is one run of an input file into an output file.
type Job struct {
	Input string // the JSONL file of Requests
	// Output is the JSONL file of Results: created, or resumed when it exists. One run at a time
	// may use it (each shard of a file writes its own): a run locks it, and a second run on it is
	// refused with ErrOutputInUse, on the systems with file locks (Linux, macOS, the BSDs,
	// illumos; not Windows, where keeping to one run is the caller's part).
	Output string

	// Concurrency bounds the requests in flight; 0 means DefaultConcurrency.
	Concurrency int
	// Shard picks the requests this run covers; the zero Shard is the whole file.
	Shard Shard
	// RetryFailed sends again the requests whose result in Output failed, replacing those results.
	RetryFailed bool
	// Grace is how long the requests in flight may finish once ctx ends; 0 means DefaultGrace.
	Grace time.Duration
	// Progress, when set, is called after each result and at least every ProgressEvery while
	// requests are in flight, never concurrently.
	Progress func(Progress)
	// Options apply to every request, after the client's.
	Options []infergate.Option
}

// Defaults of Job.
const (
	DefaultConcurrency = 16              // requests in flight
	DefaultGrace       = 5 * time.Second // for the requests in flight once ctx ends
	ProgressEvery      = time.Second     // the longest time between two calls of Job.Progress
)

// Progress is the state of a run, for a person watching it.
type Progress struct {
	Total     int `json:"total"`     // requests the run covers (its shard)
	Succeeded int `json:"succeeded"` // with a successful result, earlier runs' included
	Failed    int `json:"failed"`    // with a failed result, earlier runs' included
	Resumed   int `json:"resumed"`   // results of earlier runs kept in the output (RetryFailed drops the failed)
	Sent      int `json:"sent"`      // requests this run sent
	InFlight  int `json:"in_flight"` // requests sent and not yet answered

	// Usage sums the usage the answers of this run reported.
	Usage infergate.Usage `json:"usage"`
	// Cost sums what this run's answers cost (ResponseInfo.Cost), in the currency of the first
	// priced one; nil while none was priced.
	Cost *infergate.Money `json:"cost,omitempty"`
	// Unpriced counts the answers with usage but no price, or a price in another currency than
	// Cost's.
	Unpriced int `json:"unpriced"`

	Elapsed time.Duration `json:"elapsed_ns"` // since Run was called
	// PausedUntil is when the run sends again after a 429's Retry-After; zero when it is not paused.
	PausedUntil time.Time `json:"paused_until,omitzero"`
}

// Summary is the end of a run.
type Summary struct {
	Progress
	// Interrupted tells that ctx ended before every request had a result: the output is resumable.
	Interrupted bool `json:"interrupted"`
}
