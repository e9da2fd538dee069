package gatewaytest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Interaction is one recorded exchange: what was asked and what was answered.
// It is what a WithCassetteScrubber function edits before the file is written.
type Interaction struct {
	Request  CassetteRequest  `json:"request"`
	Response CassetteResponse `json:"response"`
}

// CassetteRequest is what of a request the cassette keeps and matches on.
type CassetteRequest struct {
	Method string     `json:"method"`
	Path   string     `json:"path"`
	Query  url.Values `json:"query,omitempty"`
	// JSON is a JSON body in canonical form: keys sorted, no white space.
	JSON json.RawMessage `json:"json,omitempty"`
	// Text is a body that is not JSON nor multipart.
	Text string `json:"text,omitempty"`
	// Form and File describe a multipart upload: its fields, and its file
	// part by name, size and hash, never its bytes or boundary.
	Form map[string]string `json:"form,omitempty"`
	File *UploadedFile     `json:"file,omitempty"`
}

// CassetteResponse is a recorded answer. Its body is in exactly one of JSON
// (a JSON body as the server wrote it, white space aside), Text, Base64 (a
// binary body such as speech audio) and Events (a text/event-stream).
type CassetteResponse struct {
	Status int             `json:"status"`
	Header http.Header     `json:"header,omitempty"`
	JSON   json.RawMessage `json:"json,omitempty"`
	Text   *string         `json:"text,omitempty"`
	Base64 []byte          `json:"base64,omitempty"`
	Events []CassetteEvent `json:"events,omitempty"`
}

// CassetteEvent is one event of a recorded stream and when it arrived. An
// event that is one line of compact JSON data, as chunks are, is kept in Data
// as readable JSON; any other (the [DONE] marker, comments, CRLF endings) is
// kept in Raw exactly as the server wrote it, blank line included.
type CassetteEvent struct {
	OffsetMS int64           `json:"offset_ms"` // milliseconds from the response's headers
	Data     json.RawMessage `json:"data,omitempty"`
	Raw      string          `json:"raw,omitempty"`
}

// newEvent keeps raw as JSON data when writing "data: ", the compact JSON and
// a blank line gives back raw exactly.
func newEvent(at int64, raw []byte) CassetteEvent {
	if p, ok := bytes.CutPrefix(raw, []byte("data: ")); ok {
		if p, ok := bytes.CutSuffix(p, []byte("\n\n")); ok && json.Valid(p) {
			var c bytes.Buffer
			if json.Compact(&c, p) == nil && bytes.Equal(c.Bytes(), p) {
				return CassetteEvent{OffsetMS: at, Data: slices.Clone(p)}
			}
		}
	}
	return CassetteEvent{OffsetMS: at, Raw: string(raw)}
}

// bytes returns the event as the server wrote it.
func (e CassetteEvent) bytes() []byte {
	if e.Data == nil {
		return []byte(e.Raw)
	}
	var c bytes.Buffer
	c.WriteString("data: ")
	if json.Compact(&c, e.Data) != nil {
		c.Write(e.Data)
	}
	c.WriteString("\n\n")
	return c.Bytes()
}

// droppedHeaders never reach the file: credentials, per-attempt values, and
// framing a replay recomputes.
var droppedHeaders = []string{
	"Authorization", "Cookie", "Set-Cookie", "Idempotency-Key",
	"Content-Length", "Transfer-Encoding", "Connection", "Date",
}

// newCassetteRequest reads the request's body and puts it back, so that the
// attempt still sends it.
func newCassetteRequest(req *http.Request) (CassetteRequest, error) {
	rec := CassetteRequest{Method: req.Method, Path: req.URL.Path}
	if q := req.URL.Query(); len(q) > 0 {
		rec.Query = q
	}
	if req.Body == nil || req.Body == http.NoBody {
		return rec, nil
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return rec, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	mt, params, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if mt == "multipart/form-data" && params["boundary"] != "" {
		if readMultipart(&rec, body, params["boundary"]) == nil {
			return rec, nil
		}
		rec.Form, rec.File = nil, nil
	}
	if canon, ok := canonicalJSON(body); ok {
		rec.JSON = canon
	} else {
		rec.Text = string(body)
	}
	return rec, nil
}

func readMultipart(rec *CassetteRequest, body []byte, boundary string) error {
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		data, err := io.ReadAll(p)
		if err != nil {
			return err
		}
		if p.FileName() != "" {
			sum := sha256.Sum256(data)
			rec.File = &UploadedFile{Filename: p.FileName(), Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}
			continue
		}
		if rec.Form == nil {
			rec.Form = map[string]string{}
		}
		rec.Form[p.FormName()] = string(data)
	}
}

// canonicalJSON re-encodes a JSON document with sorted keys and no white
// space, numbers kept as written, so that two encodings of one value match.
func canonicalJSON(b []byte) (json.RawMessage, bool) {
	v, ok := decodeJSON(b)
	if !ok {
		return nil, false
	}
	out, err := json.Marshal(v)
	return out, err == nil
}

func decodeJSON(b []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.Decode(new(any)) != io.EOF {
		return nil, false
	}
	return v, true
}

// recordResponse keeps a copy of the answer in the interaction and hands the
// caller an equivalent response. A stream is recorded as the caller reads it.
func (c *Cassette) recordResponse(in *Interaction, resp *http.Response, start time.Time) (*http.Response, error) {
	h := resp.Header.Clone()
	for _, k := range droppedHeaders {
		h.Del(k)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "text/event-stream" {
		c.mu.Lock()
		in.Response = CassetteResponse{Status: resp.StatusCode, Header: h}
		c.mu.Unlock()
		resp.Body = &streamTee{c: c, in: in, body: resp.Body, start: time.Now()}
		return resp, nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	out := CassetteResponse{Status: resp.StatusCode, Header: h}
	var compact bytes.Buffer
	switch {
	case json.Valid(body) && json.Compact(&compact, body) == nil:
		out.JSON = compact.Bytes()
	case utf8.Valid(body) && !strings.HasPrefix(mt, "audio/") && mt != "application/octet-stream":
		s := string(body)
		out.Text = &s
	default:
		out.Base64 = body
	}
	c.mu.Lock()
	in.Response = out
	c.learnResponseSecrets(out.JSON)
	c.mu.Unlock()
	return resp, nil
}

// streamTee passes a stream through to the caller and records its events,
// each stamped with when its last byte arrived.
type streamTee struct {
	c       *Cassette
	in      *Interaction
	body    io.ReadCloser
	start   time.Time
	pending []byte
	once    sync.Once
}

func (t *streamTee) Read(p []byte) (int, error) {
	n, err := t.body.Read(p)
	if n > 0 {
		t.pending = append(t.pending, p[:n]...)
		at := time.Since(t.start).Milliseconds()
		var events []CassetteEvent
		for {
			end := eventEnd(t.pending)
			if end < 0 {
				break
			}
			events = append(events, newEvent(at, t.pending[:end]))
			t.pending = t.pending[end:]
		}
		t.add(events)
	}
	if err != nil {
		t.flush()
	}
	return n, err
}

func (t *streamTee) Close() error {
	t.flush()
	return t.body.Close()
}

// flush records what is left of a stream that ended without a blank line.
func (t *streamTee) flush() {
	t.once.Do(func() {
		if len(t.pending) > 0 {
			t.add([]CassetteEvent{newEvent(time.Since(t.start).Milliseconds(), t.pending)})
			t.pending = nil
		}
	})
}

func (t *streamTee) add(events []CassetteEvent) {
	if len(events) == 0 {
		return
	}
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.in.Response.Events = append(t.in.Response.Events, events...)
}

// eventEnd returns the length of the first complete event in b (through the
// blank line that ends it, in any of the line endings SSE allows), or -1.
func eventEnd(b []byte) int {
	for i := 0; i < len(b); i++ {
		if b[i] != '\n' && b[i] != '\r' {
			continue
		}
		// A line ends at i; the event ends if the next line is empty.
		j := i + 1
		if b[i] == '\r' {
			if j == len(b) {
				return -1 // a \n may follow
			}
			if b[j] == '\n' {
				j++
			}
		}
		if j < len(b) && (b[j] == '\n' || b[j] == '\r') {
			k := j + 1
			if b[j] == '\r' {
				if k == len(b) {
					return -1
				}
				if b[k] == '\n' {
					k++
				}
			}
			return k
		}
		i = j - 1
	}
	return -1
}

// learnRequestSecrets adds the bearer credential of a request. Called with
// c.mu held.
func (c *Cassette) learnRequestSecrets(req *http.Request) {
	for _, v := range req.Header.Values("Authorization") {
		if _, cred, ok := strings.Cut(v, " "); ok && cred != "" {
			c.secrets[strings.TrimSpace(cred)] = struct{}{}
		} else if v != "" {
			c.secrets[v] = struct{}{}
		}
	}
	for _, v := range req.Header.Values("Cookie") {
		for _, ck := range strings.Split(v, ";") {
			if _, val, ok := strings.Cut(ck, "="); ok && len(val) >= 8 {
				c.secrets[strings.TrimSpace(val)] = struct{}{}
			}
		}
	}
}

// secretFields are the JSON fields whose string values a response carries
// credentials in, such as the key Keys.Create answers.
var secretFields = []string{"key", "api_key", "access_token", "token", "secret", "refresh_token"}

// learnResponseSecrets adds the credentials a JSON answer carries. Called
// with c.mu held.
func (c *Cassette) learnResponseSecrets(body json.RawMessage) {
	if len(body) == 0 {
		return
	}
	v, ok := decodeJSON(body)
	if !ok {
		return
	}
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, e := range t {
				if s, ok := e.(string); ok && slices.Contains(secretFields, strings.ToLower(k)) && looksLikeCredential(s) {
					c.secrets[s] = struct{}{}
				}
				walk(e)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(v)
}

// looksLikeCredential tells a credential from a short label or a prefix
// shown for display (key_prefix is a different field anyway).
func looksLikeCredential(s string) bool {
	return len(s) >= 16 && !strings.ContainsAny(s, " \n")
}

func (r CassetteRequest) clone() CassetteRequest {
	c := r
	if r.Query != nil {
		c.Query = url.Values{}
		for k, v := range r.Query {
			c.Query[k] = slices.Clone(v)
		}
	}
	c.JSON = slices.Clone(r.JSON)
	if r.Form != nil {
		c.Form = make(map[string]string, len(r.Form))
		for k, v := range r.Form {
			c.Form[k] = v
		}
	}
	if r.File != nil {
		f := *r.File
		c.File = &f
	}
	return c
}

func (in *Interaction) clone() *Interaction {
	out := &Interaction{Request: in.Request.clone(), Response: in.Response}
	r := &out.Response
	r.Header = in.Response.Header.Clone()
	r.JSON = slices.Clone(in.Response.JSON)
	if in.Response.Text != nil {
		s := *in.Response.Text
		r.Text = &s
	}
	r.Base64 = slices.Clone(in.Response.Base64)
	r.Events = slices.Clone(in.Response.Events)
	for i, e := range r.Events {
		r.Events[i].Data = slices.Clone(e.Data)
	}
	return out
}
