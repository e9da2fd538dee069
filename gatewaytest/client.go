package gatewaytest

import infergate "github.com/infergate/infergate-go"

// Client returns an SDK client wired to this server: base URL s.URL(), the
// server's API key and access token, and an HTTP client that trusts the
// server. opts are applied after those, so a test can still change retries,
// credentials or the HTTP client. It panics if infergate.NewClient fails,
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
	}
	c, err := infergate.NewClient(append(base, opts...)...)
	if err != nil {
		panic("gatewaytest: Server.Client: " + err.Error())
	}
	return c
}
