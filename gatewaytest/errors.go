package gatewaytest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrorReply is a scripted error response. Build one with DetailErrorReply,
// ValidationErrorReply, OpenAIErrorReply, StringErrorReply, HTMLErrorReply or
// RateLimitErrorReply, or fill it in by hand; inject it with Server.FailNext
// or WithFailures.
type ErrorReply struct {
	Status      int    // HTTP status; a 200 here is legal and sometimes deployed
	Body        string // sent verbatim
	ContentType string // "application/json" when empty
	// RetryAfter is the wait the reply asks for; 0 sends none. It is sent as
	// Retry-After in whole seconds, rounded up, as the gateway does; a wait
	// that is not whole seconds is also sent exactly as retry-after-ms (the
	// header OpenAI adds), which the SDK prefers, so tests can ask for
	// milliseconds and not sleep.
	RetryAfter time.Duration
	// Route limits the failure to one route, named by its URL path exactly as
	// Request.Path reports it and the SDK's docs name it, such as
	// "/api/v1/chat/completions" or "/health". It also matches sub-paths
	// ("/api/v1/chat-history/chats" covers a chat's messages). Empty means
	// every route; a path that is no route's (one without /api/v1, say)
	// matches nothing, and New's test then reports the failure unused.
	Route string
}

// On returns a copy of e that applies only to route, a URL path such as
// "/api/v1/chat/completions" (see ErrorReply.Route).
func (e ErrorReply) On(route string) ErrorReply {
	e.Route = route
	return e
}

// WithRetryAfter returns a copy of e that asks the client to wait d before
// retrying (see ErrorReply.RetryAfter).
func (e ErrorReply) WithRetryAfter(d time.Duration) ErrorReply {
	e.RetryAfter = d
	return e
}

// DetailErrorReply is the FastAPI body {"detail":"msg"} the gateway uses for most
// rejections.
func DetailErrorReply(status int, msg string) ErrorReply {
	return jsonError(status, map[string]any{"detail": msg})
}

// ValidationErrorReply is a 422 in the FastAPI validation shape
// {"detail":[{"type","loc","msg","input"}]}, reporting field of the body.
func ValidationErrorReply(field, msg string) ErrorReply {
	return jsonError(http.StatusUnprocessableEntity, map[string]any{"detail": []any{
		map[string]any{"type": "value_error", "loc": []any{"body", field}, "msg": msg, "input": nil},
	}})
}

// OpenAIErrorFields is the inner object of an OpenAI-style {"error":{...}} body.
type OpenAIErrorFields struct {
	Message string         // the human-readable text
	Type    string         // e.g. invalid_request_error or rate_limit_error
	Param   any            // a string, or nil for JSON null
	Code    any            // a string, a number, or nil for JSON null
	Extra   map[string]any // more keys beside the four, e.g. "available"
}

// OpenAIErrorReply is the {"error":{"message","type","param","code",...}} body the
// chat route uses.
func OpenAIErrorReply(status int, e OpenAIErrorFields) ErrorReply {
	inner := map[string]any{"message": e.Message, "type": e.Type, "param": e.Param, "code": e.Code}
	for k, v := range e.Extra {
		inner[k] = v
	}
	return jsonError(status, map[string]any{"error": inner})
}

// StringErrorReply is the {"error":"text"} body some routes send, even with status 200.
func StringErrorReply(status int, text string) ErrorReply {
	return jsonError(status, map[string]any{"error": text})
}

// HTMLErrorReply is an HTML page, as a proxy in front of the gateway returns.
func HTMLErrorReply(status int, html string) ErrorReply {
	return ErrorReply{Status: status, Body: html, ContentType: "text/html; charset=utf-8"}
}

// RateLimitErrorReply is the gateway's own 429: an OpenAI-style body with code
// rate_limit_exceeded, asking the client to wait retryAfter (see
// ErrorReply.RetryAfter; the gateway always asks for whole seconds).
func RateLimitErrorReply(retryAfter time.Duration) ErrorReply {
	e := OpenAIErrorReply(http.StatusTooManyRequests, OpenAIErrorFields{
		Message: "Rate limit exceeded: too many requests per minute",
		Type:    "requests",
		Code:    "rate_limit_exceeded",
	})
	e.RetryAfter = retryAfter
	return e
}

func jsonError(status int, v any) ErrorReply {
	b, err := json.Marshal(v)
	if err != nil {
		panic("gatewaytest: encoding error body: " + err.Error())
	}
	return ErrorReply{Status: status, Body: string(b)}
}

func (e ErrorReply) write(w http.ResponseWriter) {
	ct := e.ContentType
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	if e.RetryAfter > 0 {
		seconds := (e.RetryAfter + time.Second - 1) / time.Second
		w.Header().Set("Retry-After", strconv.FormatInt(int64(seconds), 10))
		if e.RetryAfter%time.Second != 0 {
			ms := (e.RetryAfter + time.Millisecond - 1) / time.Millisecond
			w.Header().Set("Retry-After-Ms", strconv.FormatInt(int64(ms), 10))
		}
	}
	if e.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", "Bearer")
	}
	status := e.Status
	if status == 0 {
		status = http.StatusInternalServerError
	}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(e.Body))
}

type failure struct {
	remaining int
	reply     ErrorReply
}

// FailNext makes the next n requests that match e.Route answer with e instead
// of their normal response; after that the route works again. Calls queue up:
// FailNext(2, a) then FailNext(1, b) fails twice with a, then once with b.
// Requests with bad credentials get their 401 and do not use up a failure.
func (s *Server) FailNext(n int, e ErrorReply) {
	if n <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, &failure{remaining: n, reply: e})
}

// unusedFailures returns copies of the injected failures not yet used up.
func (s *Server) unusedFailures() []failure {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []failure
	for _, f := range s.failures {
		if f.remaining > 0 {
			out = append(out, *f)
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// takeFailure consumes one failure for path, oldest first.
func (s *Server) takeFailure(path string) (ErrorReply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.failures {
		if f.remaining <= 0 || !routeMatches(f.reply.Route, path) {
			continue
		}
		f.remaining--
		if f.remaining == 0 {
			s.failures = slices.Delete(s.failures, i, i+1)
		}
		return f.reply, true
	}
	return ErrorReply{}, false
}

func routeMatches(route, path string) bool {
	if route == "" {
		return true
	}
	full := "/" + strings.Trim(route, "/")
	return path == full || strings.HasPrefix(path, full+"/")
}
