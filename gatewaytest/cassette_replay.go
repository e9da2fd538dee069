package gatewaytest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
)

// CassetteMissError is a request a cassette has no recording left for, in
// CassetteReplay mode. Its message names the request and shows how it
// differs from the closest recorded one.
type CassetteMissError struct {
	Path    string // the cassette file
	Request CassetteRequest
	// Diff is cmp.Diff of the closest recorded request against this one
	// (-recorded +sent), empty when nothing comparable was recorded or when
	// an identical request was recorded but its answers are all used.
	Diff string
	// Replayed is how many identical recorded requests were already
	// answered: the code sends this request more often than it did.
	Replayed int
}

// Error names the request and shows the diff; it holds no credential, as the
// request was scrubbed before it was compared.
func (e *CassetteMissError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gatewaytest: cassette %s has no recording of %s %s", e.Path, e.Request.Method, e.Request.Path)
	if len(e.Request.Query) > 0 {
		b.WriteString("?" + e.Request.Query.Encode())
	}
	switch {
	case e.Replayed > 0:
		fmt.Fprintf(&b, " left: its %d %s already replayed", e.Replayed, plural(e.Replayed, "recording was", "recordings were"))
	case e.Diff != "":
		b.WriteString("; closest recorded request (-recorded +sent):\n" + e.Diff)
	default:
		b.WriteString(" and no request to the same route")
	}
	return b.String()
}

// match returns the first unused entry for the request, or -1. Called with
// c.mu held.
func (c *Cassette) match(r CassetteRequest) int {
	for i, e := range c.entries {
		if !c.used[i] && sameRequest(e.Request, r) {
			return i
		}
	}
	return -1
}

func sameRequest(a, b CassetteRequest) bool {
	return a.Method == b.Method && a.Path == b.Path && a.Query.Encode() == b.Query.Encode() &&
		bytes.Equal(canonicalOr(a.JSON), canonicalOr(b.JSON)) && a.Text == b.Text &&
		cmp.Equal(a.Form, b.Form) && cmp.Equal(a.File, b.File)
}

// canonicalOr re-canonicalizes a body read from a file a person may have
// edited; the cassette's own entries are canonical already.
func canonicalOr(b json.RawMessage) []byte {
	if c, ok := canonicalJSON(b); ok {
		return c
	}
	return b
}

// miss builds the error for a request with no recording, comparing it with
// the recorded requests of the same method and path (else of any route).
// Called with c.mu held.
func (c *Cassette) miss(r CassetteRequest) *CassetteMissError {
	e := &CassetteMissError{Path: c.path, Request: r}
	for _, x := range c.entries {
		if sameRequest(x.Request, r) {
			e.Replayed++
		}
	}
	if e.Replayed > 0 {
		return e
	}
	sent := comparable(r)
	best := -1
	for pass := 0; pass < 2 && best < 0; pass++ {
		for _, x := range c.entries {
			if pass == 0 && (x.Request.Method != r.Method || x.Request.Path != r.Path) {
				continue
			}
			// cmp varies its output's spaces on purpose; a message people
			// compare across runs wants them plain.
			d := strings.ReplaceAll(cmp.Diff(comparable(x.Request), sent), "\u00a0", " ")
			if best < 0 || len(d) < best {
				best, e.Diff = len(d), d
			}
		}
	}
	return e
}

// comparable is a request as plain values, so that a diff shows a body's
// changed field rather than two differing strings.
func comparable(r CassetteRequest) map[string]any {
	m := map[string]any{"method": r.Method, "path": r.Path}
	if len(r.Query) > 0 {
		m["query"] = map[string][]string(r.Query)
	}
	if len(r.JSON) > 0 {
		if v, ok := decodeJSON(r.JSON); ok {
			m["json"] = v
		}
	}
	if r.Text != "" {
		m["text"] = r.Text
	}
	if len(r.Form) > 0 {
		m["form"] = r.Form
	}
	if r.File != nil {
		m["file"] = *r.File
	}
	return m
}

// replay builds the recorded answer to req. A stream's events are written
// one per write by a goroutine that ends when the body is closed, the
// request's context ends, or the events run out.
func (r CassetteResponse) replay(req *http.Request, pacing bool) *http.Response {
	resp := &http.Response{
		StatusCode: r.Status,
		Status:     strconv.Itoa(r.Status) + " " + http.StatusText(r.Status),
		Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  r.Header.Clone(),
		Request: req,
	}
	if resp.Header == nil {
		resp.Header = http.Header{}
	}
	var body []byte
	switch {
	case r.Events != nil:
		resp.ContentLength = -1
		resp.Body = replayEvents(req.Context(), r.Events, pacing)
		return resp
	case r.JSON != nil:
		body = r.JSON
	case r.Text != nil:
		body = []byte(*r.Text)
	default:
		body = r.Base64
	}
	resp.ContentLength = int64(len(body))
	resp.Body = io.NopCloser(bytes.NewReader(slices.Clone(body)))
	return resp
}

func replayEvents(ctx context.Context, events []CassetteEvent, pacing bool) io.ReadCloser {
	pr, pw := io.Pipe()
	stop := context.AfterFunc(ctx, func() { pr.CloseWithError(ctx.Err()) })
	start := time.Now()
	go func() {
		defer stop()
		for _, ev := range events {
			if pacing {
				if wait := time.Duration(ev.OffsetMS)*time.Millisecond - time.Since(start); wait > 0 {
					t := time.NewTimer(wait)
					select {
					case <-t.C:
					case <-ctx.Done():
						t.Stop()
						pw.CloseWithError(ctx.Err())
						return
					}
				}
			}
			if _, err := pw.Write(ev.bytes()); err != nil {
				return
			}
		}
		pw.Close()
	}()
	return pr
}

// secretForms returns every spelling of the secrets the file must not hold:
// as they are, JSON-escaped and percent-encoded, longest first so that no
// form is left half replaced.
func secretForms(secrets map[string]struct{}) []string {
	var forms []string
	for s := range secrets {
		if s == "" {
			continue
		}
		j, _ := json.Marshal(s)
		forms = append(forms, s, string(j[1:len(j)-1]), url.QueryEscape(s), url.PathEscape(s))
	}
	slices.SortFunc(forms, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return slices.Compact(forms)
}

const redacted = "REDACTED"

// replaceForms also finds a credential spelled with HTML character references
// (&#115;k-…, zero-padded, layered), as an error page may write it: a text
// that reveals one once unescaped is kept unescaped, and cleaned. Each
// unescaping that changes a text shortens it, so this ends.
func replaceForms(s string, forms []string) string {
	for _, f := range forms {
		s = strings.ReplaceAll(s, f, redacted)
	}
	if len(forms) > 0 && strings.Contains(s, "&") {
		if u := html.UnescapeString(s); u != s && revealsForm(u, forms) {
			return replaceForms(u, forms)
		}
	}
	return s
}

// revealsForm reports whether s holds a credential, directly or behind more
// HTML character references.
func revealsForm(s string, forms []string) bool {
	for {
		for _, f := range forms {
			if strings.Contains(s, f) {
				return true
			}
		}
		u := html.UnescapeString(s)
		if u == s {
			return false
		}
		s = u
	}
}

func replaceFormsBytes(b []byte, forms []string) []byte {
	for _, f := range forms {
		b = bytes.ReplaceAll(b, []byte(f), []byte(redacted))
	}
	return b
}

// scrubJSON blanks credentials out of a JSON text, also where its strings
// spell them with \u escapes: such a text is decoded, cleaned and encoded
// again, losing only its key order.
func scrubJSON(b json.RawMessage, forms []string) json.RawMessage {
	b = replaceFormsBytes(b, forms)
	if len(forms) == 0 || (!bytes.Contains(b, []byte(`\u`)) && !bytes.Contains(b, []byte("&"))) {
		return b
	}
	v, ok := decodeJSON(b)
	if !ok {
		return b
	}
	found := false
	var walk func(v any) any
	walk = func(v any) any {
		switch t := v.(type) {
		case string:
			if r := replaceForms(t, forms); r != t {
				found = true
				return r
			}
		case map[string]any:
			out := make(map[string]any, len(t))
			for k, e := range t {
				out[replaceForms(k, forms)] = walk(e)
			}
			return out
		case []any:
			for i, e := range t {
				t[i] = walk(e)
			}
		}
		return v
	}
	v = walk(v)
	if !found {
		return b
	}
	out, err := json.Marshal(v)
	if err != nil {
		return b
	}
	return out
}

// scrub replaces every credential form in every text the interaction holds.
func (in *Interaction) scrub(forms []string) {
	rq := &in.Request
	rq.Path = replaceForms(rq.Path, forms)
	if rq.Query != nil {
		q := url.Values{}
		for k, vs := range rq.Query {
			for _, v := range vs {
				q.Add(replaceForms(k, forms), replaceForms(v, forms))
			}
		}
		rq.Query = q
	}
	rq.JSON = scrubJSON(rq.JSON, forms)
	rq.Text = replaceForms(rq.Text, forms)
	for k, v := range rq.Form {
		rq.Form[k] = replaceForms(v, forms)
	}
	rs := &in.Response
	for _, k := range droppedHeaders {
		rs.Header.Del(k)
	}
	for k, vs := range rs.Header {
		for i, v := range vs {
			vs[i] = replaceForms(v, forms)
		}
		rs.Header[k] = vs
	}
	rs.JSON = scrubJSON(rs.JSON, forms)
	if rs.Text != nil {
		t := replaceForms(*rs.Text, forms)
		rs.Text = &t
	}
	for i := range rs.Events {
		rs.Events[i].Raw = replaceForms(rs.Events[i].Raw, forms)
		rs.Events[i].Data = scrubJSON(rs.Events[i].Data, forms)
	}
}
