package infergate

import "net/http"

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
