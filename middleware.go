package infergate

import (
	"errors"
	"net/http"

	"github.com/infergate/infergate-go/internal/transport"
)

// Middleware wraps every HTTP attempt the client makes: retries each go through it again, so a
// tracing or metrics middleware sees them all. It may change the request, look at the response, or
// answer without calling next. For example, counting attempts and their latency:
//
//	timing := func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
//		start := time.Now()
//		resp, err := next(req)
//		metrics.Observe(req.URL.Path, time.Since(start), err)
//		return resp, err
//	}
//	client, err := infergate.NewClient(infergate.WithMiddleware(timing))
//
// For OpenTelemetry, the nested module otelinfergate traces whole operations (a stream until its
// end, a tool loop with its calls) and its HTTP attempts; middleware is for HTTP concerns.
type Middleware func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error)

// WithMiddleware adds middleware around every attempt, in order: the first given is the outermost.
// Passed to a method, it adds to the client's middleware for that call.
func WithMiddleware(mw ...Middleware) Option {
	return func(c *config) {
		for _, m := range mw {
			if m != nil {
				c.middleware = append(c.middleware, m)
			}
		}
	}
}

// withMiddleware puts the middleware chain in front of a transport.
func withMiddleware(rt http.RoundTripper, mw []Middleware) http.RoundTripper {
	for i := len(mw) - 1; i >= 0; i-- {
		rt = middlewareRT{mw: mw[i], next: rt}
	}
	return rt
}

type middlewareRT struct {
	mw   Middleware
	next http.RoundTripper
}

func (m middlewareRT) RoundTrip(req *http.Request) (*http.Response, error) {
	return m.mw(req, m.next.RoundTrip)
}

// WithStandIn adds mw as WithMiddleware does, for a middleware that answers in place of the
// gateway, such as a replaying gatewaytest cassette, and tells the client what follows from that:
//
//   - A call needs no credential for mw to answer it. Without one it goes to mw with no
//     Authorization header; if mw passes it on (calls next), it fails there, before it leaves the
//     client, with the *ValidationError it fails with when there is no stand-in.
//   - An error mw returns itself, rather than one its next returned, is mw's answer: the call
//     returns it as it is (credentials redacted), not as a *TransportError about the gateway's
//     address, and does not retry it.
func WithStandIn(mw Middleware) Option {
	return func(c *config) {
		if mw != nil {
			c.standIn = true
			c.middleware = append(c.middleware, standIn(mw))
		}
	}
}

// standIn wraps a stand-in's middleware: its next refuses a request that lacks its credential, and
// an error of its own is marked as its answer.
func standIn(mw Middleware) Middleware {
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		var nextErr error
		resp, err := mw(req, func(req *http.Request) (*http.Response, error) {
			if missing, ok := req.Context().Value(missingCredentialKey{}).(error); ok {
				nextErr = transport.Permanent(&standInAnswer{missing})
				return nil, nextErr
			}
			resp, err := next(req)
			nextErr = err
			return resp, err
		})
		if err != nil && (nextErr == nil || !errors.Is(err, nextErr)) {
			err = transport.Permanent(&standInAnswer{err})
		}
		return resp, err
	}
}

// missingCredentialKey carries, in a request's context, the error a call without its credential
// fails with once it goes past a stand-in.
type missingCredentialKey struct{}

// standInAnswer is an error that did not come from the network: a stand-in's own answer, or a
// missing credential found past it. The call returns what it holds as it is.
type standInAnswer struct{ err error }

func (e *standInAnswer) Error() string { return e.err.Error() }
func (e *standInAnswer) Unwrap() error { return e.err }
