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
	Request  CassetteRequest  `json:"request"`  // what the client sent
	Response CassetteResponse `json:"response"` // what the server answered, replayed as its bytes

	idempotencyKey string // the request's, blanked out of what the server echoed of it
}

// CassetteRequest is what of a request the cassette keeps and matches on.
type CassetteRequest struct {
	Method string     `json:"method"`          // the HTTP method, e.g. POST
	Path   string     `json:"path"`            // the URL path, e.g. /api/v1/chat/completions
	Query  url.Values `json:"query,omitempty"` // the query string's values; nil when there is none
	// JSON is a JSON body in canonical form: keys sorted, no white space.
	JSON json.RawMessage `json:"json,omitempty"`
	// Text is a body that is not JSON nor multipart.
	Text string `json:"text,omitempty"`
	// Form and File describe a multipart upload: its fields, and its file
	// part by name, size and hash, never its bytes or boundary.
	Form map[string]string `json:"form,omitempty"`
	File *UploadedFile     `json:"file,omitempty"` // the multipart "file" part; nil for other bodies
}

// CassetteResponse is a recorded answer. Its body is in exactly one of JSON,
// Text, Base64 and Events, and is replayed as the bytes the server sent: a
// JSON object or array the server wrote compactly is kept in JSON, shown
// indented for people to read and replayed compact again; any other text
// (JSON with the server's own spacing included) in Text, as it is; bytes
// that are not UTF-8 text, or audio, in Base64; a text/event-stream in
// Events.
type CassetteResponse struct {
	Status int             `json:"status"`           // the HTTP status code
	Header http.Header     `json:"header,omitempty"` // as sent, less cookies, Date and framing headers
	JSON   json.RawMessage `json:"json,omitempty"`   // a compact JSON body, stored indented
	Text   *string         `json:"text,omitempty"`   // any other UTF-8 body, exactly; nil when the body is elsewhere
	Base64 []byte          `json:"base64,omitempty"` // a body that is not UTF-8 text, or audio
	Events []CassetteEvent `json:"events,omitempty"` // a text/event-stream body, event by event
	// Truncated is a body that broke off after what is recorded (the
	// connection was cut, say): a replay breaks it off there too, reading
	// then failing with io.ErrUnexpectedEOF.
	Truncated bool `json:"truncated,omitempty"`
}

// CassetteEvent is one event of a recorded stream and when it arrived. An
// event that is one line of a compact JSON object or array, as chunks are, is
// kept in Data as readable JSON; any other UTF-8 text (the [DONE] marker,
// comments, CRLF endings) in Raw exactly as the server wrote it, blank line
// included; anything else in Base64.
type CassetteEvent struct {
	OffsetMS int64           `json:"offset_ms"`        // milliseconds from the response's headers
	Data     json.RawMessage `json:"data,omitempty"`   // a compact JSON data line, stored as readable JSON
	Raw      string          `json:"raw,omitempty"`    // any other UTF-8 event, exactly, blank line included
	Base64   []byte          `json:"base64,omitempty"` // an event that is not UTF-8 text
}

// newEvent keeps raw as JSON data when writing "data: ", the compact JSON and
// a blank line gives back raw exactly.
func newEvent(at int64, raw []byte) CassetteEvent {
	if p, ok := bytes.CutPrefix(raw, []byte("data: ")); ok {
		if p, ok := bytes.CutSuffix(p, []byte("\n\n")); ok && isCompactJSON(p) {
			return CassetteEvent{OffsetMS: at, Data: slices.Clone(p)}
		}
	}
	if !utf8.Valid(raw) {
		return CassetteEvent{OffsetMS: at, Base64: slices.Clone(raw)}
	}
	return CassetteEvent{OffsetMS: at, Raw: string(raw)}
}

// bytes returns the event as the server wrote it.
func (e CassetteEvent) bytes() []byte {
	switch {
	case e.Data != nil:
		var c bytes.Buffer
		c.Grow(len(e.Data) + len("data: \n\n"))
		c.WriteString("data: ")
		if json.Compact(&c, e.Data) != nil {
			c.Truncate(len("data: "))
			c.Write(e.Data)
		}
		c.WriteString("\n\n")
		return c.Bytes()
	case e.Base64 != nil:
		return slices.Clone(e.Base64)
	}
	return []byte(e.Raw)
}

// isCompactJSON reports whether b is a JSON object or array of UTF-8 text
// with no white space outside its strings, which a cassette file gives back
// exactly: its value in the file, however indented, compacts to b. (Go
// 1.27's encoder escapes U+2028 in it, say, which then stays escaped.)
func isCompactJSON(b []byte) bool {
	if len(b) == 0 || b[0] != '{' && b[0] != '[' || !utf8.Valid(b) || !json.Valid(b) {
		return false
	}
	var c bytes.Buffer
	if json.Compact(&c, b) != nil || !bytes.Equal(c.Bytes(), b) {
		return false
	}
	var file bytes.Buffer
	var back json.RawMessage
	return newFileEncoder(&file).Encode(json.RawMessage(b)) == nil &&
		json.Unmarshal(file.Bytes(), &back) == nil && bytes.Equal(compacted(back), b)
}

// newFileEncoder is how a cassette file is written: indented for people to
// read, and without HTML escaping, so that a body's <, > and & stay as the
// server wrote them.
func newFileEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc
}

// compacted is b without the white space a cassette file indents it with.
func compacted(b json.RawMessage) []byte {
	var c bytes.Buffer
	if json.Compact(&c, b) != nil {
		return slices.Clone(b)
	}
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

// record enters the exchange in the cassette and hands the caller a response
// that reads as resp would have. It is entered before its body is read, as
// broken off, so that a Close meanwhile writes what is known; a stream is
// recorded as the caller reads it.
func (c *Cassette) record(rec CassetteRequest, idempotencyKey string, resp *http.Response) *http.Response {
	h := resp.Header.Clone()
	for _, k := range droppedHeaders {
		h.Del(k)
	}
	in := &Interaction{
		Request:        rec,
		Response:       CassetteResponse{Status: resp.StatusCode, Header: h, Truncated: true},
		idempotencyKey: idempotencyKey,
	}
	c.mu.Lock()
	c.entries = append(c.entries, in)
	c.used = append(c.used, true)
	c.mu.Unlock()
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "text/event-stream" {
		resp.Body = &streamTee{c: c, in: in, body: resp.Body, start: time.Now()}
		return resp
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	kept := keptBody(body, mt)
	c.mu.Lock()
	in.Response.JSON, in.Response.Text, in.Response.Base64 = kept.JSON, kept.Text, kept.Base64
	in.Response.Truncated = err != nil
	c.learnResponseSecrets(body)
	c.mu.Unlock()
	resp.Body = bodyReader(body, err)
	if err != nil {
		resp.ContentLength = -1
	}
	return resp
}

// keptBody puts a body in the field of CassetteResponse that gives back its
// bytes exactly.
func keptBody(body []byte, mediaType string) CassetteResponse {
	switch {
	case isCompactJSON(body):
		return CassetteResponse{JSON: body}
	case utf8.Valid(body) && !strings.HasPrefix(mediaType, "audio/") && mediaType != "application/octet-stream":
		s := string(body)
		return CassetteResponse{Text: &s}
	}
	return CassetteResponse{Base64: body}
}

// bodyReader reads body, then fails with err when it is not nil.
func bodyReader(body []byte, err error) io.ReadCloser {
	if err == nil {
		return io.NopCloser(bytes.NewReader(body))
	}
	return io.NopCloser(io.MultiReader(bytes.NewReader(body), failingReader{err}))
}

type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

// streamTee passes a stream through to the caller and records its events,
// each stamped with when its last byte arrived. The recording stays broken
// off unless the stream is read to its end.
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
		t.flush(err == io.EOF)
	}
	return n, err
}

func (t *streamTee) Close() error {
	t.flush(false)
	return t.body.Close()
}

// flush records what is left of a stream that ended without a blank line,
// and whether it ended or broke off.
func (t *streamTee) flush(ended bool) {
	t.once.Do(func() {
		var events []CassetteEvent
		if len(t.pending) > 0 {
			events = []CassetteEvent{newEvent(time.Since(t.start).Milliseconds(), t.pending)}
			t.pending = nil
		}
		t.c.mu.Lock()
		defer t.c.mu.Unlock()
		t.in.Response.Events = append(t.in.Response.Events, events...)
		t.in.Response.Truncated = !ended
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
		r.Events[i].Base64 = slices.Clone(e.Base64)
	}
	return out
}
