package infergate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/infergate/infergate-go/internal/bodytext"
	"github.com/infergate/infergate-go/internal/transport"
)

// Sentinels to test errors with errors.Is. An *APIError matches the sentinel of its status code (and
// of its error code, where the gateway names one); stream errors match ErrIncompleteStream.
var (
	// ErrUnauthorized: the API key or access token was missing or rejected (401).
	ErrUnauthorized = errors.New("infergate: unauthorized")
	// ErrForbidden: the credentials are valid but not allowed to do this (403).
	ErrForbidden = errors.New("infergate: forbidden")
	// ErrNotFound: the route, model, chat or session does not exist (404).
	ErrNotFound = errors.New("infergate: not found")
	// ErrInsufficientBalance: the account cannot pay for the request (402 or code insufficient_balance).
	ErrInsufficientBalance = errors.New("infergate: insufficient balance")
	// ErrRateLimited: too many requests or tokens (429 or code rate_limit_exceeded).
	ErrRateLimited = errors.New("infergate: rate limited")
	// ErrServer: the gateway or the provider behind it failed (5xx).
	ErrServer = errors.New("infergate: server error")
	// ErrIncompleteStream: a stream ended before the model finished its answer. The answer received
	// so far is still available from the stream's Completion.
	ErrIncompleteStream = errors.New("infergate: stream ended before the answer was complete")
	// ErrStreamTimeout: a stream produced no byte within the first-byte or idle timeout (a
	// *TimeoutError).
	ErrStreamTimeout = errors.New("infergate: stream timed out")
	// ErrCurrencyMismatch: Money arithmetic or a comparison was asked of amounts in two currencies,
	// which the API gives no exchange rate between. Nothing was sent.
	ErrCurrencyMismatch = errors.New("infergate: amounts in different currencies")
	// ErrSessionsUnsupported: the deployment manages sessions itself and has no session routes.
	ErrSessionsUnsupported = errors.New("infergate: this gateway does not expose session routes")
)

// APIError is a failed call as the server answered it. It keeps everything the server said, whatever
// envelope it used ({"error":{...}}, {"error":"text"}, {"detail":"text"}, {"detail":[...]}, or a
// non-JSON body), so nothing is lost when an error is logged or reported.
type APIError struct {
	StatusCode int           // HTTP status; 200 when a successful status carried an error body
	Type       string        // error type, e.g. invalid_request_error, when the server gave one
	Code       string        // error code, e.g. model_not_found; numeric codes are kept as text
	Param      string        // the request parameter at fault, when named
	Message    string        // the human-readable message
	RequestID  string        // X-Request-Id of the response: quote it when reporting a problem
	RetryAfter time.Duration // how long the server asked to wait before retrying, if it said
	RateLimits *RateLimits   // the limits the response announced (e.g. on a 429); nil when none
	Header     http.Header   // the response headers, credentials redacted
	// Body is the response body as received, credentials redacted: an HTML error page is here in
	// full, while Message holds only its title or the start of its text.
	Body []byte
	// Attempts is how many times the request was sent before this answer was taken as final: 1, or
	// more when it was retried. 0 means not recorded.
	Attempts int
}

// Error describes the failure in one line: the status, how many attempts were made when there was
// more than one, and what the server said. A body that is not a JSON error (a proxy's HTML page,
// say) is represented by a short, tag-free excerpt. It never contains credentials.
func (e *APIError) Error() string {
	var b strings.Builder
	status := fmt.Sprintf("%d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.StatusCode >= 200 && e.StatusCode < 300 {
		fmt.Fprintf(&b, "infergate: the server answered %s but reported an error", status)
	} else {
		b.WriteString("infergate: " + status)
	}
	b.WriteString(afterAttempts(e.Attempts))
	if e.Code != "" {
		b.WriteString(": " + e.Code)
	} else if e.Type != "" {
		b.WriteString(": " + e.Type)
	}
	// A proxy's page often just repeats the status line ("502 Bad Gateway"), and a framework's bare
	// 404 its text ({"detail":"Not Found"}).
	if m := strings.TrimSpace(e.Message); m != "" && !strings.EqualFold(m, status) && !strings.EqualFold(m, http.StatusText(e.StatusCode)) {
		b.WriteString(": " + e.Message)
	}
	if e.RequestID != "" {
		b.WriteString(" (request " + e.RequestID + ")")
	}
	if e.RetryAfter > 0 {
		b.WriteString(" (retry after " + e.RetryAfter.String() + ")")
	}
	return b.String()
}

// Is reports whether the error matches one of the package's sentinels.
func (e *APIError) Is(target error) bool {
	return matchesSentinel(target, e.StatusCode, e.Code, e.Type, e.Message)
}

// matchesSentinel decides, for every error that carries a status, a code, a type and a message,
// which sentinels it matches.
func matchesSentinel(target error, status int, code, typ, message string) bool {
	switch target {
	case ErrUnauthorized:
		return status == http.StatusUnauthorized
	case ErrForbidden:
		return status == http.StatusForbidden
	case ErrNotFound:
		return status == http.StatusNotFound
	case ErrInsufficientBalance:
		return status == http.StatusPaymentRequired || code == "insufficient_balance"
	case ErrRateLimited:
		return status == http.StatusTooManyRequests || code == "rate_limit_exceeded"
	case ErrServer:
		return status >= 500
	case ErrContextWindow:
		return contextExceeded(status, code, typ, message)
	}
	return false
}

// newAPIError is the one way an *APIError is made, for a response whose body has been read. The
// body, the headers and every field taken from them are redacted, so that a server echoing a
// credential (in its body, a WWW-Authenticate header, or JSON-escaped) cannot put it into the error.
func (c *config) newAPIError(status int, header http.Header, body []byte) *APIError {
	h := c.redactHeader(header)
	body = c.redact(body)
	e := &APIError{StatusCode: status, Header: h, Body: body, RequestID: h.Get("X-Request-Id")}
	e.RetryAfter, _ = transport.RetryAfter(h)
	e.RateLimits = parseRateLimits(h, time.Now())
	f := c.reported(body, h.Get("Content-Type"), false)
	e.Type, e.Code, e.Param, e.Message = f.Type, f.Code, f.Param, f.Message
	return e
}

// StreamError is an error the server reported inside a stream, as an event whose top-level key is
// "error" or as a line that is not a chunk at all (e.g. "provider failed, failover enabled"). Such
// events are skipped while the stream goes on; if the stream then ends without the model finishing,
// the last one becomes the stream's error, and it matches ErrIncompleteStream.
type StreamError struct {
	Message    string // the error message, or the text of a malformed line
	Type       string // e.g. provider_error, server_error; empty for a malformed line
	Code       string // error code, when given
	StatusCode int    // the HTTP status the event carries ("status", "status_code" or a numeric "code"); 0 when none
	Raw        string // the event's data (or the stray line) exactly as received

	ended bool // this error ended the stream
}

// Error describes the in-band error.
func (e *StreamError) Error() string {
	var b strings.Builder
	b.WriteString("infergate: error in stream")
	if e.StatusCode != 0 {
		b.WriteString(" (status " + strconv.Itoa(e.StatusCode) + ")")
	}
	if e.Type != "" {
		b.WriteString(": " + e.Type)
	}
	b.WriteString(": " + e.Message)
	return b.String()
}

// Is matches the same sentinels as an *APIError with the event's status and code, so that an
// in-band 402 matches ErrInsufficientBalance, a 429 ErrRateLimited and a 5xx ErrServer.
func (e *StreamError) Is(target error) bool {
	return matchesSentinel(target, e.StatusCode, e.Code, e.Type, e.Message)
}

// Unwrap lets errors.Is(err, ErrIncompleteStream) hold for the error that ended a stream.
func (e *StreamError) Unwrap() error {
	if e.ended {
		return ErrIncompleteStream
	}
	return nil
}

// newStreamError reads an in-band error event or a malformed line, raw, from payload: the event's
// data, or what in a stray line reports the error (see ChatStream.skipStray). bare tells an SSE
// event named "error", whose data may be the error object itself rather than an envelope.
func (c *config) newStreamError(raw, payload []byte, bare bool) *StreamError {
	raw = c.redact(raw)
	f := c.reported(c.redact(payload), "", bare)
	return &StreamError{Raw: string(raw), Message: f.Message, Type: f.Type, Code: f.Code, StatusCode: f.Status}
}

// reported is what a server reported in body: the fields of its error (errorFields), else a short,
// tag-free excerpt of the body (contentType, when known, tells an HTML or XML page). Every
// field is redacted after decoding, as a JSON escape that the raw body did not show as the
// credential (\u0073k-...) decodes to it.
func (c *config) reported(body []byte, contentType string, bare bool) envelopeFields {
	f, ok := errorFields(body, bare)
	if !ok {
		// Redacted before it is cut, so that no part of a credential is left.
		f = envelopeFields{Message: bodytext.Excerpt(c.redactString(bodytext.Text(body, contentType)))}
	}
	f.Message, f.Type, f.Code, f.Param = c.redactString(f.Message), c.redactString(f.Type), c.redactString(f.Code), c.redactString(f.Param)
	return f
}

// TransportError is a call that got no response at all: the connection could not be made, was cut
// or timed out, on every attempt.
type TransportError struct {
	Method   string // the request's method
	Path     string // the request's URL path, without its query
	Attempts int    // how many times the request was sent; 0 means not recorded
	Err      error  // why the last attempt failed, credentials and URL query values redacted
}

// Error names the request, how many attempts were made when there was more than one, and the
// last failure.
func (e *TransportError) Error() string {
	text := "infergate: " + e.Method + " " + e.Path
	if e.Attempts > 1 {
		text += ": giving up" + afterAttempts(e.Attempts)
	}
	if e.Err != nil {
		text += ": " + causeText(e.Err)
	}
	return text
}

// Unwrap returns the last attempt's failure, so that errors.Is finds context.DeadlineExceeded, say.
func (e *TransportError) Unwrap() error { return e.Err }

// afterAttempts is " after N attempts" when a request was sent more than once, else "".
func afterAttempts(n int) string {
	if n <= 1 {
		return ""
	}
	return " after " + strconv.Itoa(n) + " attempts"
}

// ValidationError is a request the SDK refused to send because it breaks the API's rules.
type ValidationError struct {
	Field  string // the offending field, e.g. "Temperature" or "Messages[2].Content"
	Reason string // what is wrong with it
}

// Error names the field and the rule it breaks.
func (e *ValidationError) Error() string {
	return "infergate: invalid " + e.Field + ": " + e.Reason
}

func invalid(field, format string, args ...any) *ValidationError {
	return &ValidationError{Field: field, Reason: sprintf(format, args...)}
}

// errorFields reads the error body reports: its error envelope, or the bare error object when bare
// is true and the body is not an envelope; ok is false when it reports none.
func errorFields(body []byte, bare bool) (f envelopeFields, ok bool) {
	f, ok = decodeEnvelope(body)
	if !ok && bare && json.Valid(body) {
		f, ok = (&envelope{Error: body}).fields()
		ok = ok && f.Message != ""
	}
	return f, ok
}

// envelopeFields is what every error envelope of the gateway boils down to.
type envelopeFields struct {
	Message, Type, Code, Param string
	Status                     int
}

type envelope struct {
	Error         json.RawMessage `json:"error"`
	Detail        json.RawMessage `json:"detail"`
	ProviderError *envelope       `json:"providerModelError"`
	// Success and Message are how the session routes report a failure: {"success":false,"message":...}.
	Success *bool           `json:"success"`
	Message json.RawMessage `json:"message"`
}

type errorObject struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Param   json.RawMessage `json:"param"`
	Code    json.RawMessage `json:"code"`
	Status  json.RawMessage `json:"status"`
	// StatusCode is how Groq spells the status.
	StatusCode json.RawMessage `json:"status_code"`
}

// httpStatus reads the HTTP status an error object carries: "status" or "status_code", else a
// "code" that is a JSON number of an HTTP status (OpenRouter's spelling). A code that is a word,
// such as "rate_limit_exceeded", stays a code only.
func (o *errorObject) httpStatus() int {
	for _, raw := range []json.RawMessage{o.Status, o.StatusCode} {
		if n, err := strconv.Atoi(scalarText(raw)); err == nil && n != 0 {
			return n
		}
	}
	if n, err := strconv.Atoi(string(bytes.TrimSpace(o.Code))); err == nil && n >= 100 && n <= 599 {
		return n
	}
	return 0
}

type detailItem struct {
	Loc []any  `json:"loc"`
	Msg string `json:"msg"`
}

// decodeEnvelope reads any error envelope the gateway uses. ok is false when the body is not one.
func decodeEnvelope(body []byte) (envelopeFields, bool) {
	var env envelope
	if json.Unmarshal(body, &env) != nil {
		return envelopeFields{}, false
	}
	return env.fields()
}

func (env *envelope) fields() (envelopeFields, bool) {
	var f envelopeFields
	switch {
	case isPresent(env.Error):
		var obj errorObject
		if json.Unmarshal(env.Error, &obj) == nil {
			f.Message, f.Type = obj.Message, obj.Type
			f.Param, f.Code = scalarText(obj.Param), scalarText(obj.Code)
			f.Status = obj.httpStatus()
			return f, true
		}
		f.Message = scalarText(env.Error)
		return f, true
	case isPresent(env.Detail):
		var items []detailItem
		if json.Unmarshal(env.Detail, &items) == nil {
			msgs := make([]string, len(items))
			for i, it := range items {
				msgs[i] = it.Msg
				if len(it.Loc) > 0 {
					msgs[i] = joinLoc(it.Loc) + ": " + it.Msg
				}
			}
			f.Message = strings.Join(msgs, "; ")
			return f, true
		}
		f.Message = scalarText(env.Detail)
		return f, true
	case env.ProviderError != nil:
		return env.ProviderError.fields()
	case env.Success != nil && !*env.Success:
		f.Message = scalarText(env.Message)
		if f.Message == "" {
			f.Message = "the gateway answered success: false"
		}
		return f, true
	}
	return f, false
}

func joinLoc(loc []any) string {
	parts := make([]string, len(loc))
	for i, p := range loc {
		parts[i] = fmt.Sprint(p)
	}
	return strings.Join(parts, ".")
}

func isPresent(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

// isErrorValue reports whether a successful answer's "error" key reports an error: null, false, an
// empty string, object or array (what some servers send beside a good answer) do not.
func isErrorValue(raw json.RawMessage) bool {
	switch string(bytes.TrimSpace(raw)) {
	case "", "null", "false", `""`, "{}", "[]":
		return false
	}
	return true
}

// scalarText renders a JSON string, number or boolean as plain text; null and absence give "".
func scalarText(raw json.RawMessage) string {
	if !isPresent(raw) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

// ModelNotFoundError is Models.Resolve's answer for a name the catalogue does not have. It matches
// ErrNotFound. With Suggestions, the gateway would refuse a request naming it (a 400
// model_not_found_near_miss naming them); without, it would serve the request with its default
// model, silently.
type ModelNotFoundError struct {
	Name        string   // the name asked for
	Suggestions []string // the catalogue names the gateway finds close to Name, best first; at most 5
}

// Error names the model and the suggestions.
func (e *ModelNotFoundError) Error() string {
	msg := fmt.Sprintf("infergate: model %q is not in the catalogue", e.Name)
	if len(e.Suggestions) > 0 {
		quoted := make([]string, len(e.Suggestions))
		for i, s := range e.Suggestions {
			quoted[i] = strconv.Quote(s)
		}
		msg += "; did you mean " + strings.Join(quoted, ", ") + "?"
	}
	return msg
}

// Is reports whether target is ErrNotFound.
func (e *ModelNotFoundError) Is(target error) bool { return target == ErrNotFound }

// errorf is fmt.Errorf for this package's errors: format names the package, and each wrapped error
// of the package loses its own "infergate: " prefix in the message, so that a message names the
// package once, while errors.Is and errors.As still find it.
func errorf(format string, args ...any) error { return fmt.Errorf(format, unprefixed(args)...) }

// sprintf is fmt.Sprintf for the text of this package's errors, with errorf's rule for the errors
// among args.
func sprintf(format string, args ...any) string { return fmt.Sprintf(format, unprefixed(args)...) }

// unprefixed puts in place of each error of this package among args one that reads without the
// "infergate: " prefix and unwraps to the original.
func unprefixed(args []any) []any {
	for i, a := range args {
		if err, ok := a.(error); ok && strings.HasPrefix(err.Error(), errPrefix) {
			args[i] = prefixless{err}
		}
	}
	return args
}

// causeText is the text of err as part of another of this package's messages: without the
// "infergate: " prefix, which the enclosing message already starts with.
func causeText(err error) string { return strings.TrimPrefix(err.Error(), errPrefix) }

const errPrefix = "infergate: "

type prefixless struct{ err error }

func (p prefixless) Error() string { return causeText(p.err) }
func (p prefixless) Unwrap() error { return p.err }
