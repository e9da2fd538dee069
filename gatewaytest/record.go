package gatewaytest

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// Request is what the server saw of one request, for assertions. Header holds
// the headers as sent, credentials included: the package never logs them, and
// tests should not either.
type Request struct {
	Method    string            // the HTTP method, e.g. POST
	Path      string            // the URL path, e.g. /api/v1/chat/completions: the form ErrorReply.On takes
	RawQuery  string            // the query string as sent, without the "?"
	Header    http.Header       // as sent, credentials included
	Body      []byte            // raw body; nil for multipart uploads
	JSON      map[string]any    // Body decoded, when it is a JSON object
	Form      map[string]string // a multipart upload's other fields, by name; nil for other requests
	File      *UploadedFile     // the multipart "file" part, if any
	RequestID string            // the X-Request-Id the server answered with
	at        time.Time         // the clock's reading for this request
}

// UploadedFile describes a multipart file part without keeping its bytes.
type UploadedFile struct {
	Filename string `json:"filename"` // the part's file name as the client gave it
	Size     int64  `json:"size"`     // bytes
	SHA256   string `json:"sha256"`   // lowercase hex
}

// Query returns the parsed query string.
func (r Request) Query() url.Values {
	v, _ := url.ParseQuery(r.RawQuery)
	return v
}

// Requests returns copies of all requests received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = r.clone()
	}
	return out
}

// LastRequest returns a copy of the most recent request, and false when there
// has been none.
func (s *Server) LastRequest() (Request, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		return Request{}, false
	}
	return s.requests[len(s.requests)-1].clone(), true
}

// Copies are handed out so a test cannot race with a handler still filling
// in an upload's details.
func (r *Request) clone() Request {
	c := *r
	c.Header = r.Header.Clone()
	c.Body = slices.Clone(r.Body)
	c.JSON = cloneJSON(r.JSON)
	c.Form = maps.Clone(r.Form)
	if r.File != nil {
		f := *r.File
		c.File = &f
	}
	return c
}

func cloneJSON(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return cloneJSON(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = cloneValue(e)
		}
		return out
	}
	return v
}

type recordKey struct{}

func withRecord(ctx context.Context, rec *Request) context.Context {
	return context.WithValue(ctx, recordKey{}, rec)
}

// updateRecord lets a handler add what only it learns (upload details)
// to the request's record, under the server's lock.
func (s *Server) updateRecord(r *http.Request, f func(*Request)) {
	rec, ok := r.Context().Value(recordKey{}).(*Request)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f(rec)
}
