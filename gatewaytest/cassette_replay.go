package gatewaytest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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
	Path    string          // the cassette file
	Request CassetteRequest // the request that found no recording, as it would be recorded
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
		resp.Body = replayEvents(req.Context(), r.Events, pacing, r.Truncated)
		return resp
	case r.JSON != nil:
		body = compacted(r.JSON)
	case r.Text != nil:
		body = []byte(*r.Text)
	default:
		body = slices.Clone(r.Base64)
	}
	resp.ContentLength = int64(len(body))
	var err error
	if r.Truncated {
		resp.ContentLength, err = -1, io.ErrUnexpectedEOF
	}
	resp.Body = bodyReader(body, err)
	return resp
}

// replayEvents writes the events, and ends a stream that broke off while
// recording with io.ErrUnexpectedEOF.
func replayEvents(ctx context.Context, events []CassetteEvent, pacing, truncated bool) io.ReadCloser {
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
		if truncated {
			pw.CloseWithError(io.ErrUnexpectedEOF)
			return
		}
		pw.Close()
	}()
	return pr
}
