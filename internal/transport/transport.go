// Package transport wires go-retryablehttp the way an LLM gateway needs: a retry policy that knows
// which statuses are transient, honours Retry-After within a cap, never sleeps past the caller's
// deadline, logs through slog instead of stderr, and hands back the last response instead of an error
// that has lost its status and body.
package transport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Policy says how one call is retried.
type Policy struct {
	MaxRetries    int           // retries after the first attempt
	MaxRetryAfter time.Duration // a longer Retry-After ends the call at once
	BaseWait      time.Duration // first backoff; doubles per attempt
	MaxWait       time.Duration // longest computed backoff
	// AtMostOnce never sends a POST again once a previous attempt delivered it in full, unless the
	// server answered that it did not run it (429 or 503).
	AtMostOnce bool
	Logger     *slog.Logger // never nil
	// Redact makes an attempt's error safe to log (no credentials, no URL query values); nil logs
	// it with only RedactURLError applied.
	Redact func(error) error
}

// Retrier sends requests with go-retryablehttp, configured once per HTTP client. Each call brings
// its own Policy, which travels with the request's context to the retry check.
type Retrier struct{ rc retryablehttp.Client }

// NewRetrier returns the retrier of an HTTP client.
func NewRetrier(hc *http.Client) *Retrier {
	return &Retrier{rc: retryablehttp.Client{
		HTTPClient: hc,
		// The policy of each call decides when to stop (see checkRetry); so does the wait, which
		// checkRetry spends itself, as the backoff function would not see the call's context.
		RetryMax:     math.MaxInt32,
		CheckRetry:   checkRetry,
		Backoff:      func(time.Duration, time.Duration, int, *http.Response) time.Duration { return 0 },
		ErrorHandler: lastAttempt,
	}}
}

// call is the state of one call's attempts.
type call struct {
	policy    Policy
	method    string
	path      string
	attempts  int
	delivered *atomic.Bool // set when AtMostOnce watches the delivery of a POST
}

type callKey struct{}

// Do sends req, retrying transient failures per p. It returns the last attempt's response whatever
// its status, and how many attempts were made; the error, the last attempt's with its URL redacted,
// is set only when no response was received at all.
func (r *Retrier) Do(p Policy, req *retryablehttp.Request) (*http.Response, int, error) {
	c := &call{policy: p, method: req.Method, path: req.URL.Path}
	ctx := context.WithValue(req.Context(), callKey{}, c)
	if p.AtMostOnce && req.Method == http.MethodPost {
		ctx, c.delivered = watchDelivery(ctx)
	}
	resp, err := r.rc.Do(req.WithContext(ctx))
	if err != nil {
		err = RedactURLError(err)
		var notResent *notResentError
		if errors.As(err, &notResent) {
			err = notResent
		}
	}
	return resp, max(c.attempts, 1), err
}

// checkRetry decides, after each attempt, whether to make another, and waits before it.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	c := ctx.Value(callKey{}).(*call)
	p := c.policy
	c.attempts++
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if !retryable(resp, err) || c.attempts > p.MaxRetries {
		return false, nil
	}
	if c.delivered != nil && c.delivered.Swap(false) && (resp == nil ||
		resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable) {
		if err != nil {
			return false, &notResentError{err}
		}
		return false, nil
	}
	w, fromServer := p.backoff(c.attempts, resp)
	if fromServer && w > p.MaxRetryAfter {
		p.Logger.LogAttrs(ctx, slog.LevelWarn, "infergate: server asked to wait longer than allowed; not retrying",
			slog.String("path", c.path), slog.Duration("retry_after", w), slog.Duration("max", p.MaxRetryAfter))
		return false, nil
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < w {
		return false, nil
	}
	p.Logger.LogAttrs(ctx, slog.LevelInfo, "infergate: retrying",
		slog.String("method", c.method), slog.String("path", c.path),
		slog.Int("attempt", c.attempts), slog.Duration("wait", w), p.outcome(resp, err))
	if resp != nil {
		// Free the connection for the next attempt before waiting.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
	}
	timer := time.NewTimer(w)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-timer.C:
		return true, nil
	}
}

// lastAttempt hands back the last attempt's response, whatever its status, or its error.
func lastAttempt(resp *http.Response, err error, _ int) (*http.Response, error) {
	// A redirect refused by the redirect policy comes with the redirect itself, its body closed;
	// the refusal says more than the 3xx.
	if resp != nil && (err == nil || resp.StatusCode < 300 || resp.StatusCode > 399) {
		return resp, nil
	}
	return nil, err
}

// watchDelivery notes when an attempt of req has been written in full, body included: from then on
// the server may be running it.
func watchDelivery(ctx context.Context) (context.Context, *atomic.Bool) {
	delivered := new(atomic.Bool)
	trace := &httptrace.ClientTrace{WroteRequest: func(info httptrace.WroteRequestInfo) {
		if info.Err == nil {
			delivered.Store(true)
		}
	}}
	return httptrace.WithClientTrace(ctx, trace), delivered
}

// notResentError is a failure after the request was delivered, which AtMostOnce does not retry.
type notResentError struct{ err error }

func (e *notResentError) Error() string {
	return "the request was delivered, then the connection failed; not sent again, as the server may have run it: " + e.err.Error()
}
func (e *notResentError) Unwrap() error { return e.err }

func (p Policy) outcome(resp *http.Response, err error) slog.Attr {
	if err != nil {
		if p.Redact != nil {
			err = p.Redact(err)
		}
		return slog.String("error", RedactURLError(err).Error())
	}
	return slog.Int("status", resp.StatusCode)
}

// retryable reports whether an attempt failed in a way that another attempt may fix.
func retryable(resp *http.Response, err error) bool {
	if err != nil {
		return !permanent(err)
	}
	switch resp.StatusCode {
	case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooManyRequests,
		http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable,
		http.StatusGatewayTimeout:
		return true
	}
	return false
}

// permanent reports whether an error will come back however often the request is sent: a
// certificate that is not trusted (the x509 errors reach us as values or pointers, bare or inside a
// *tls.CertificateVerificationError), a request Go refuses to send (bad header, unknown scheme), a
// redirect loop, or a failure the SDK marked with Permanent.
func permanent(err error) bool {
	var (
		perm        *permanentError
		authority   x509.UnknownAuthorityError
		authorityP  *x509.UnknownAuthorityError
		hostname    x509.HostnameError
		hostnameP   *x509.HostnameError
		invalidCert x509.CertificateInvalidError
		invalidP    *x509.CertificateInvalidError
		verify      *tls.CertificateVerificationError
		record      tls.RecordHeaderError
	)
	if errors.As(err, &perm) || errors.As(err, &authority) || errors.As(err, &authorityP) ||
		errors.As(err, &hostname) || errors.As(err, &hostnameP) || errors.As(err, &invalidCert) ||
		errors.As(err, &invalidP) || errors.As(err, &verify) || errors.As(err, &record) {
		return true
	}
	text := err.Error()
	return strings.Contains(text, "unsupported protocol scheme") || strings.Contains(text, "invalid header field") ||
		(strings.Contains(text, "stopped after") && strings.Contains(text, "redirects"))
}

// Permanent marks an error that a retry cannot fix, such as a failed read of the file being
// uploaded; the call then ends at once.
func Permanent(err error) error { return &permanentError{err} }

type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// RedactURLError returns err with the URL of a *url.Error at its top redacted (see RedactURL), as
// http.Client reports every failure with the URL it was fetching, which after a redirect is the
// server's choice.
func RedactURLError(err error) error {
	var urlErr *url.Error
	if !errors.As(err, &urlErr) {
		return err
	}
	if safe := RedactURL(urlErr.URL); safe != urlErr.URL {
		redacted := &url.Error{Op: urlErr.Op, URL: safe, Err: urlErr.Err}
		if urlErr == err {
			return redacted
		}
		return &replacedURLError{text: strings.ReplaceAll(err.Error(), urlErr.URL, safe), err: err, urlErr: redacted}
	}
	return err
}

// replacedURLError is an error chain whose *url.Error had its URL redacted.
type replacedURLError struct {
	text   string
	err    error
	urlErr *url.Error
}

func (e *replacedURLError) Error() string { return e.text }
func (e *replacedURLError) Unwrap() error { return e.urlErr }
func (e *replacedURLError) Is(target error) bool {
	return errors.Is(e.err, target)
}

// RedactURL blanks out a URL's user information and query values, where credentials travel
// ("https://user:key@host", "/login?token=key"). Text that is not a URL is returned unchanged.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.User == nil && u.RawQuery == "" && u.Fragment == "") {
		return raw
	}
	if u.User != nil {
		u.User = url.User("redacted")
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{"redacted"}
		}
		u.RawQuery = q.Encode()
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// backoff returns the wait before the next attempt, and whether the server chose it.
func (p Policy) backoff(attempt int, resp *http.Response) (time.Duration, bool) {
	if resp != nil {
		if d, ok := RetryAfter(resp.Header); ok {
			return d, true
		}
	}
	w := p.BaseWait << (attempt - 1)
	if w > p.MaxWait || w <= 0 {
		w = p.MaxWait
	}
	if w <= 0 {
		return 0, false
	}
	// Jitter over the upper half keeps a herd of clients from retrying in lockstep.
	return w/2 + rand.N(w/2+1), false
}

// RetryAfter reads how long the server asked to wait: retry-after-ms, then Retry-After as seconds or
// as an HTTP date.
func RetryAfter(h http.Header) (time.Duration, bool) {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, ok := parseWait(v); ok {
			return duration(ms, time.Millisecond), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, ok := parseWait(v); ok {
		return duration(s, time.Second), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// parseWait reads a number of seconds or milliseconds. A number too large for a float64 ("1" and
// 400 zeros, 1e400) is a very long wait, not an absent one.
func parseWait(v string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, f >= 0 // false for NaN and negative waits
}

// duration converts a server's number without overflow: a wait too long for a Duration becomes the
// longest one, so that it is refused as too long instead of wrapping round to a negative wait that
// would retry at once.
func duration(v float64, unit time.Duration) time.Duration {
	if d := v * float64(unit); d < math.MaxInt64 {
		return time.Duration(d)
	}
	return math.MaxInt64
}

// KeepIdle wraps a transport so that CloseIdleConnections is a no-op: go-retryablehttp calls it after
// every failed call, which would throw away the warm connection pool that other, healthy calls share.
func KeepIdle(rt http.RoundTripper) http.RoundTripper {
	return keepIdle{rt}
}

type keepIdle struct{ http.RoundTripper }

// Wait waits out the backoff that follows the given attempt (counted from 1), as between two
// attempts of one request, or returns ctx's error when it ends first. A wait that would outlast
// ctx's deadline is not begun: it returns context.DeadlineExceeded at once.
func (p Policy) Wait(ctx context.Context, attempt int) error {
	w, _ := p.backoff(attempt, nil)
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < w {
		return context.DeadlineExceeded
	}
	timer := time.NewTimer(w)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
