package gatewaytest

import (
	"cmp"
	"fmt"
	"io"
	"os"

	infergate "github.com/infergate/infergate-go"
)

// Connect returns a client of the gateway at INFERGATE_BASE_URL (else the real one) when
// INFERGATE_API_KEY or INFERGATE_BASE_URL is set, and only when neither is, a client of a fake
// gateway started with fake, so that a program (an example, a command-line tool) runs anywhere,
// offline too, and an address given is always the one called. It writes one line to w saying
// which; stop closes the fake and does nothing for a real gateway.
//
// getenv reads the configuration (nil means os.Getenv): INFERGATE_API_KEY, INFERGATE_BASE_URL and
// INFERGATE_ACCESS_TOKEN configure the real client exactly as infergate.NewClient reads them from
// the environment, and nothing else does, so that a program can add its own settings (a flag for
// the address, say) and its tests need not touch the process's environment. An address without a
// key gives a client without one: the health check, which takes none, is answered, and a call that
// needs a key fails with a *infergate.ValidationError before anything is sent. A base URL that
// cannot work is an error, before anything is written.
//
// Of the fake's options, WithClientOptions applies to the real client too: options a program gives
// every client (otelinfergate.Instrument, a timeout, a middleware) it gives there, and keeps the
// switch between the real gateway and the fake.
func Connect(w io.Writer, getenv func(string) string, fake ...ServerOption) (client *infergate.Client, stop func(), err error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	key, baseURL := getenv("INFERGATE_API_KEY"), getenv("INFERGATE_BASE_URL")
	if key == "" && baseURL == "" {
		gw := NewServer(fake...)
		fmt.Fprintln(w, "using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)")
		return gw.Client(), gw.Close, nil
	}
	var cfg config
	for _, o := range fake {
		o(&cfg)
	}
	baseURL = cmp.Or(baseURL, infergate.DefaultBaseURL)
	opts := append([]infergate.Option{infergate.WithAPIKey(key), infergate.WithBaseURL(baseURL),
		infergate.WithAccessToken(getenv("INFERGATE_ACCESS_TOKEN"))}, cfg.clientOpts...)
	client, err = infergate.NewClient(opts...)
	if err != nil {
		return nil, nil, err
	}
	if key == "" {
		// An address exported for another program is easy to forget: say how to get the fake back.
		fmt.Fprintln(w, "using the gateway at", baseURL, "without an API key (set INFERGATE_API_KEY for the calls"+
			" that need one; with neither a key nor an address, an in-process fake answers)")
	} else {
		fmt.Fprintln(w, "using the real gateway at", baseURL)
	}
	return client, func() {}, nil
}

// WithClientOptions gives every client of the server opts: Server.Client applies them after its
// own settings (and before the options of the call to Client), and Connect gives them to the
// client it returns, the fake's or the real gateway's, so that a program that instruments its
// client (otelinfergate.Instrument, say) or sets a timeout does so in one place for both.
func WithClientOptions(opts ...infergate.Option) ServerOption {
	return func(c *config) { c.clientOpts = append(c.clientOpts, opts...) }
}
