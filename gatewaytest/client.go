package gatewaytest

import (
	"time"

	infergate "github.com/infergate/infergate-go"
)

// Client returns an SDK client wired to this server: base URL s.URL(), the
// server's API key and access token, an HTTP client that trusts the server,
// and retry backoff in milliseconds (1 ms doubling up to 10 ms) instead of
// the production default, so a test that injects a failure does not sleep.
// The server's WithClientOptions are applied after those, and opts last, so a
// test can still change retries, backoff, credentials or the HTTP client. A Retry-After the server sends still wins
// over the backoff: script short waits with ErrorReply.RetryAfter. It panics if infergate.NewClient fails,
// which can only happen when opts themselves are invalid (such as a bad
// WithBaseURL): a test bug, not a runtime condition.
//
// Tests inside package infergate itself cannot use this helper (the import
// would be circular); they should import gatewaytest from package
// infergate_test instead.
func (s *Server) Client(opts ...infergate.Option) *infergate.Client {
	base := []infergate.Option{
		infergate.WithBaseURL(s.URL()),
		infergate.WithAPIKey(s.cfg.apiKey),
		infergate.WithAccessToken(s.cfg.accessToken),
		infergate.WithHTTPClient(s.srv.Client()),
		infergate.WithRetryBackoff(time.Millisecond, 10*time.Millisecond),
	}
	base = append(base, s.cfg.clientOpts...)
	c, err := infergate.NewClient(append(base, opts...)...)
	if err != nil {
		panic("gatewaytest: Server.Client: " + err.Error())
	}
	return c
}
