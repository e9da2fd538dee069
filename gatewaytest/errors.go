package gatewaytest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// ErrorReply is a scripted error response. Build one with DetailError,
// ValidationError, OpenAIError, StringError, HTMLError or RateLimitError, or
// fill it in by hand; inject it with Server.FailNext or WithFailures.
type ErrorReply struct {
	Status      int    // HTTP status; a 200 here is legal and sometimes deployed
	Body        string // sent verbatim
	ContentType string // "application/json" when empty
	RetryAfter  int    // seconds for a Retry-After header; 0 sends none
	// Route limits the failure to one route, given below /api/v1, such as
	// "/chat/completions". It also matches sub-paths ("/chat-history/chats"
	// covers a chat's messages). Empty means every route.
	Route string
}

// On returns a copy of e that applies only to route (below /api/v1).
func (e ErrorReply) On(route string) ErrorReply {
	e.Route = route
	return e
}

// WithRetryAfter returns a copy of e that sends Retry-After: seconds.
func (e ErrorReply) WithRetryAfter(seconds int) ErrorReply {
	e.RetryAfter = seconds
	return e
}

// DetailError is the FastAPI body {"detail":"msg"} the gateway uses for most
// rejections.
func DetailError(status int, msg string) ErrorReply {
	return jsonError(status, map[string]any{"detail": msg})
}

// ValidationError is a 422 in the FastAPI validation shape
// {"detail":[{"type","loc","msg","input"}]}, reporting field of the body.
func ValidationError(field, msg string) ErrorReply {
	return jsonError(http.StatusUnprocessableEntity, map[string]any{"detail": []any{
		map[string]any{"type": "value_error", "loc": []any{"body", field}, "msg": msg, "input": nil},
	}})
}

// APIError is the inner object of an OpenAI-style {"error":{...}} body.
type APIError struct {
	Message string
	Type    string
	Param   any            // a string, or nil for JSON null
	Code    any            // a string, a number, or nil for JSON null
	Extra   map[string]any // more keys beside the four, e.g. "available"
}

// OpenAIError is the {"error":{"message","type","param","code",...}} body the
// chat route uses.
func OpenAIError(status int, e APIError) ErrorReply {
	inner := map[string]any{"message": e.Message, "type": e.Type, "param": e.Param, "code": e.Code}
	for k, v := range e.Extra {
		inner[k] = v
	}
	return jsonError(status, map[string]any{"error": inner})
}

// StringError is the {"error":"text"} body some routes send, even with status 200.
func StringError(status int, text string) ErrorReply {
	return jsonError(status, map[string]any{"error": text})
}

// HTMLError is an HTML page, as a proxy in front of the gateway returns.
func HTMLError(status int, html string) ErrorReply {
	return ErrorReply{Status: status, Body: html, ContentType: "text/html; charset=utf-8"}
}

// RateLimitError is the gateway's own 429: an OpenAI-style body with code
// rate_limit_exceeded and a Retry-After header.
func RateLimitError(retryAfter int) ErrorReply {
	e := OpenAIError(http.StatusTooManyRequests, APIError{
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
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
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
	full := apiPrefix + "/" + strings.Trim(route, "/")
	return path == full || strings.HasPrefix(path, full+"/")
}
