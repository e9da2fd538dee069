package main

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// keyless is the line a command run with an address and no key starts with on stderr.
const keyless = "using the gateway at GATEWAY without an API key (set INFERGATE_API_KEY for the calls that need one; with neither a key nor an address, an in-process fake answers)\n"

// TestAddressWithoutAKey: an address given by INFERGATE_BASE_URL or --base-url is the one called
// even without a key, as a health probe of a self-hosted gateway is: health needs no key, and a
// command that needs one fails before anything is sent.
func TestAddressWithoutAKey(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"INFERGATE_BASE_URL", "--base-url"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			c.env = map[string]string{}
			var address []string
			if how == "--base-url" {
				address = []string{"--base-url", c.srv.URL()}
			} else {
				c.env["INFERGATE_BASE_URL"] = c.srv.URL()
			}
			r := c.run(context.Background(), append([]string{"health"}, address...)...)
			if r.code != exitOK || !strings.Contains(r.stdout, "healthy        yes") || r.stderr != keyless {
				t.Errorf("health = %+v, want the gateway's report", r)
			}
			if reqs := c.srv.Requests(); len(reqs) != 1 || reqs[0].Path != "/health" {
				t.Fatalf("requests at the address: %+v, want the health check", reqs)
			}
			r = c.run(context.Background(), append([]string{"models"}, address...)...)
			if r.code != exitFailed || r.stderr != keyless+"infergate: invalid APIKey: no API key: use WithAPIKey or set INFERGATE_API_KEY\n" {
				t.Errorf("models = %+v, want the missing key reported", r)
			}
			if n := len(c.srv.Requests()); n != 1 {
				t.Errorf("%d requests, want nothing more sent without a key", n)
			}
		})
	}
}

// TestAddressWithoutAKeyUnhealthy: a self-hosted gateway that is not healthy fails the probe, as
// the real gateway does.
func TestAddressWithoutAKeyUnhealthy(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health" || r.Header.Get("Authorization") != "" {
			http.Error(w, "unexpected request", http.StatusTeapot)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok","version":"1.2.3","database":"unhealthy","model_service":{"status":"healthy","model_count":3}}`))
	}))
	t.Cleanup(srv.Close)
	c := &cli{srv: gatewaytest.New(t), env: map[string]string{"INFERGATE_BASE_URL": srv.URL}}
	r := c.run(context.Background(), "health")
	if r.code != exitFailed || !strings.Contains(r.stdout, "healthy        no") || !strings.Contains(r.stdout, "database       unhealthy") {
		t.Errorf("health of an unhealthy self-hosted gateway = %+v, want its report and exit status 1", r)
	}
}

// TestUnreachableAddress: an address where nothing listens fails the command with the transport's
// error, with a key or without. (The retries' waits pass on synctest's clock.) The dial is refused
// by the transport itself: a port merely closed may be taken by another test's server meanwhile.
func TestUnreachableAddress(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	address := "http://" + ln.Addr().String()
	ln.Close()
	for name, env := range map[string]map[string]string{
		"without a key": {"INFERGATE_BASE_URL": address},
		"with a key":    {"INFERGATE_BASE_URL": address, "INFERGATE_API_KEY": gatewaytest.DefaultAPIKey},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := &cli{srv: gatewaytest.New(t), env: env}
			synctest.Test(t, func(t *testing.T) {
				// A transport of the bubble's own: another test's httptest.Server.Close closes the
				// idle connections of http.DefaultTransport, which would reach into the bubble.
				tr := &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
					return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
				}}
				defer tr.CloseIdleConnections()
				c.clientOpts = []infergate.Option{infergate.WithHTTPClient(&http.Client{Transport: tr})}
				r := c.run(context.Background(), "health")
				if r.code != exitFailed || r.stdout != "" || !strings.Contains(r.stderr, "connection refused") {
					t.Errorf("health at %s = %+v, want exit status 1 and the transport's error", address, r)
				}
			})
		})
	}
}
