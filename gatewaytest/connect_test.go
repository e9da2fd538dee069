package gatewaytest_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// env is a fixed environment for Connect.
func env(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func TestConnect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		env       map[string]string // "URL" stands for the address of a server playing the real gateway
		firstLine string
		wantReal  bool // the client reaches the server real, with the environment's credentials
		wantErr   bool
	}{
		{"fake without a key or an address", map[string]string{"INFERGATE_ACCESS_TOKEN": "jwt-real"},
			"using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)", false, false},
		{"real with a key, at a chosen address",
			map[string]string{"INFERGATE_API_KEY": "sk-real", "INFERGATE_BASE_URL": "URL", "INFERGATE_ACCESS_TOKEN": "jwt-real"},
			"using the real gateway at URL", true, false},
		{"real at the default address", map[string]string{"INFERGATE_API_KEY": "sk-real"},
			"using the real gateway at " + infergate.DefaultBaseURL, false, false},
		{"a bad address fails before printing", map[string]string{"INFERGATE_API_KEY": "sk-real", "INFERGATE_BASE_URL": "ftp://nowhere"},
			"", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			real := gatewaytest.New(t, gatewaytest.WithAcceptedAPIKey("sk-real"), gatewaytest.WithAcceptedAccessToken("jwt-real"))
			vars := map[string]string{}
			for k, v := range tt.env {
				vars[k] = strings.ReplaceAll(v, "URL", real.URL())
			}
			firstLine := strings.ReplaceAll(tt.firstLine, "URL", real.URL())
			var out strings.Builder
			client, stop, err := gatewaytest.Connect(&out, env(vars))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want an error: %v", err, tt.wantErr)
			}
			if err != nil {
				if out.Len() != 0 {
					t.Errorf("printed %q before failing", out.String())
				}
				return
			}
			defer stop()
			if got := out.String(); got != firstLine+"\n" {
				t.Errorf("output = %q, want %q", got, firstLine+"\n")
			}
			if !tt.wantReal && strings.Contains(firstLine, "real gateway") {
				return // the public gateway is not called from tests
			}
			if _, err := client.Models.List(context.Background()); err != nil {
				t.Fatal(err)
			}
			if _, err := client.History.Create(context.Background(), "plans"); err != nil {
				t.Fatal(err)
			}
			if reached := len(real.Requests()) > 0; reached != tt.wantReal {
				t.Errorf("the client reached the server given by INFERGATE_BASE_URL: %v, want %v", reached, tt.wantReal)
			}
		})
	}
}

// TestConnectAddressWithoutAKey: an address is the one called even without a key, as a health
// probe of a self-hosted gateway needs; a call that needs a key fails before anything is sent.
func TestConnectAddressWithoutAKey(t *testing.T) {
	t.Parallel()
	real := gatewaytest.New(t)
	var out strings.Builder
	client, stop, err := gatewaytest.Connect(&out, env(map[string]string{"INFERGATE_BASE_URL": real.URL()}))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if want := "using the gateway at " + real.URL() + " without an API key (set INFERGATE_API_KEY for the calls that need one; with neither a key nor an address, an in-process fake answers)\n"; out.String() != want {
		t.Errorf("output = %q, want %q", out.String(), want)
	}
	if _, err := client.Health.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	if reqs := real.Requests(); len(reqs) != 1 || reqs[0].Path != "/health" {
		t.Fatalf("requests at INFERGATE_BASE_URL: %+v, want the health check", reqs)
	}
	_, err = client.Models.List(context.Background())
	var v *infergate.ValidationError
	if !errors.As(err, &v) || v.Field != "APIKey" {
		t.Errorf("Models.List without a key = %v, want a ValidationError on the key", err)
	}
	if n := len(real.Requests()); n != 1 {
		t.Errorf("%d requests, want nothing sent without a key", n)
	}
}

func TestConnectStartsTheFakeWithItsOptions(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	client, stop, err := gatewaytest.Connect(&out, env(nil), gatewaytest.WithReplies(gatewaytest.Reply{Content: "scripted"}))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	resp, err := client.Chat.Create(context.Background(), infergate.ChatRequest{
		Messages: []infergate.Message{infergate.UserMessage("hi")},
	})
	if err != nil || resp.Text() != "scripted" {
		t.Fatalf("Create = %v, %v; want the scripted reply", resp, err)
	}
}

// TestConnectClientOptions: WithClientOptions reaches the client Connect returns, the fake's and
// the real gateway's alike, and the clients Server.Client makes, before the options of that call.
func TestConnectClientOptions(t *testing.T) {
	t.Parallel()
	real := gatewaytest.New(t, gatewaytest.WithAcceptedAPIKey("sk-real"))
	for name, vars := range map[string]map[string]string{
		"fake": nil,
		"real": {"INFERGATE_API_KEY": "sk-real", "INFERGATE_BASE_URL": real.URL()},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var seen []string
			tag := infergate.WithMiddleware(func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
				mu.Lock()
				seen = append(seen, req.URL.Path)
				mu.Unlock()
				return next(req)
			})
			var out strings.Builder
			client, stop, err := gatewaytest.Connect(&out, env(vars), gatewaytest.WithClientOptions(tag,
				infergate.WithHeader("X-Program", "demo")))
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			if _, err := client.Models.List(context.Background()); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if !slices.Contains(seen, "/api/v1/models") {
				t.Errorf("the option's middleware saw %q, want the models call", seen)
			}
			if name == "real" {
				if last, _ := real.LastRequest(); last.Header.Get("X-Program") != "demo" {
					t.Errorf("the real gateway got headers %v, want the option's", last.Header)
				}
			}
		})
	}
}

func TestServerClientOptions(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t, gatewaytest.WithClientOptions(infergate.WithHeader("X-Program", "demo"), infergate.WithHeader("X-Call", "server")))
	if _, err := s.Client(infergate.WithHeader("X-Call", "client")).Models.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	if last, _ := s.LastRequest(); last.Header.Get("X-Program") != "demo" || !slices.Equal(last.Header.Values("X-Call"), []string{"server", "client"}) {
		t.Errorf("headers %v, want the server's client options, then the call's", last.Header)
	}
}
