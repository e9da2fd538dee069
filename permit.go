package infergate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/infergate/infergate-go/internal/transport"
)

// Every attempt of every route is admitted where it is sent: limitStage, the outermost step of the
// client's transport, which go-retryablehttp runs once per attempt. It takes the attempt's permits
// (WithMaxConcurrency's place, then WithLimiter's) and hands them to the answer's body, which gives
// them back when it is closed. An answer read whole is closed by the call, a panic included (read
// gives back what is left when it returns), and a retry closes the answer it drops. An answer read
// as it arrives (a stream, audio) also gives them back when it is read to its end (a chat stream,
// once it has read the usage its last bytes report) or when its context ends, so that one dropped
// without Close does not keep them.

// limitCall is what a send's attempts are admitted as, carried by the request's context.
type limitCall struct {
	limiters []Limiter
	req      LimitRequest
	// streamed is an answer read as it arrives: its context's end gives the permits back, and so
	// does its end (atEOF) for audio. A chat stream gives them back when it ends, and closes its
	// body, only once it has read its usage, which may arrive with the body's end.
	streamed, atEOF bool

	last    *attemptHold // the answer of the latest attempt, whose usage the caller reports
	refused error        // why the latest attempt was not admitted
}

type limitCallKey struct{}

// admit prepares the admission of a route's attempts; it reports false when the client limits
// nothing.
func (c *config) admit(r *route) bool {
	if len(c.limiters) == 0 {
		return false
	}
	r.limit = limitCall{limiters: c.limiters, streamed: r.stream || r.op == OperationSpeech, atEOF: r.op == OperationSpeech,
		req: LimitRequest{Key: c.limitKey(r.auth), Model: r.model, Route: r.path, Tokens: r.tokens}}
	return true
}

// limitKey is LimitRequest.Key for the credential a route sends.
func (c *config) limitKey(kind authKind) string {
	switch {
	case kind == authNone:
		return ""
	case kind != authAPIKey && c.accessToken.set():
		return c.limitKeys[1]
	}
	return c.limitKeys[0]
}

// credentialKey names a credential's quota: 64 bits of its SHA-256, enough to tell a fleet's keys
// apart, and nothing that helps to find the credential.
func credentialKey(credential string) string {
	if credential == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(credential))
	return "key:" + hex.EncodeToString(sum[:8])
}

// endLast gives back the permits of the send's latest answer, if the call did not: its body is
// closed or about to be.
func (lc *limitCall) endLast() {
	if lc.last != nil {
		lc.last.end()
	}
}

type limitStage struct{ next http.RoundTripper }

func (s limitStage) RoundTrip(req *http.Request) (*http.Response, error) {
	lc, _ := req.Context().Value(limitCallKey{}).(*limitCall)
	if lc == nil {
		return s.next.RoundTrip(req)
	}
	ctx := req.Context()
	h := &attemptHold{}
	handed := false
	defer func() {
		if !handed { // refused, the attempt failed, or a limiter or a middleware panicked
			h.end()
		}
	}()
	for _, l := range lc.limiters {
		p, err := l.Acquire(ctx, lc.req)
		if err != nil {
			lc.refused = err
			return nil, transport.Permanent(err)
		}
		if p != nil { // a limiter's odd answer: nothing to give back
			h.permits = append(h.permits, p)
		}
	}
	lc.refused = nil
	resp, err := s.next.RoundTrip(req)
	if resp != nil {
		h.status, h.header, h.arrived = resp.StatusCode, resp.Header, time.Now()
	}
	if err != nil || resp == nil || resp.Body == nil {
		return resp, err
	}
	h.ReadCloser, h.atEOF = resp.Body, lc.atEOF
	if lc.streamed {
		h.mu.Lock()
		h.stop = context.AfterFunc(ctx, h.end)
		h.mu.Unlock()
	}
	resp.Body = h
	lc.last, handed = h, true
	return resp, nil
}

// attemptHold is one attempt's permits, given back once, with what the server said; it is the
// answer's body, which gives them back when it is closed or, read as it arrives, when it ends.
type attemptHold struct {
	io.ReadCloser
	atEOF   bool
	permits []Permit
	status  int
	header  http.Header
	arrived time.Time
	usage   atomic.Pointer[Usage]
	done    atomic.Bool

	mu   sync.Mutex
	stop func() bool // unregisters the release at the context's end
}

func (h *attemptHold) Read(p []byte) (int, error) {
	n, err := h.ReadCloser.Read(p)
	if err == io.EOF && h.atEOF {
		h.end()
	}
	return n, err
}

func (h *attemptHold) Close() error {
	err := h.ReadCloser.Close()
	h.end()
	return err
}

// noteUsage records the tokens the answer says it used, for the permits' release.
func (h *attemptHold) noteUsage(u *Usage) {
	if h != nil && u != nil {
		h.usage.Store(u)
	}
}

func (h *attemptHold) end() {
	if !h.done.CompareAndSwap(false, true) {
		return
	}
	h.mu.Lock()
	stop := h.stop
	h.mu.Unlock()
	if stop != nil {
		stop()
	}
	report := LimitReport{StatusCode: h.status, Usage: h.usage.Load()}
	if h.header != nil {
		report.RateLimits = parseRateLimits(h.header, h.arrived)
		report.RetryAfter, _ = transport.RetryAfter(h.header)
	}
	for i := len(h.permits) - 1; i >= 0; i-- {
		h.permits[i].Release(report)
	}
}

// places is WithMaxConcurrency's bound: one quota of n calls in flight for the whole client, every
// route and credential counted.
type places struct{ Limiter }

func newPlaces(n int) Limiter {
	return places{NewLimiter(Quotas{Default: Quota{Concurrent: n}})}
}

func (p places) Acquire(ctx context.Context, req LimitRequest) (Permit, error) {
	return p.Limiter.Acquire(ctx, LimitRequest{})
}
