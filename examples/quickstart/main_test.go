package main

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// TestOutput runs what main runs, against the fake gateway.
func TestOutput(t *testing.T) {
	t.Setenv("INFERGATE_API_KEY", "")
	t.Setenv("INFERGATE_BASE_URL", "")
	var out strings.Builder
	client, stop, err := gatewaytest.Connect(&out, os.Getenv, fake...)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := run(context.Background(), &out, client); err != nil {
		t.Fatal(err)
	}
	want := `using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)
The capital of Portugal is Lisbon.
(llama-3.3-70b, 11 prompt + 6 completion tokens)
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// TestRun checks what run sends, and that it reports failures.
func TestRun(t *testing.T) {
	tests := []struct {
		name    string
		opts    []gatewaytest.ServerOption
		wantOut string
		wantErr error
	}{
		{"answers", fake, "The capital of Portugal is Lisbon.\n", nil},
		{"bad key", []gatewaytest.ServerOption{gatewaytest.WithAcceptedAPIKey("another")}, "", infergate.ErrUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := gatewaytest.New(t, tt.opts...)
			var out strings.Builder
			err := run(context.Background(), &out, srv.Client(infergate.WithAPIKey(gatewaytest.DefaultAPIKey)))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if got, _, _ := strings.Cut(out.String(), "("); got != tt.wantOut {
				t.Errorf("output = %q, want %q before the usage line", out.String(), tt.wantOut)
			}
			req, ok := srv.LastRequest()
			if !ok {
				t.Fatal("nothing was sent")
			}
			if req.JSON["model"] != "llama-3.3-70b" || req.JSON["temperature"] != 0.2 {
				t.Errorf("request = %s", req.Body)
			}
		})
	}
}

// TestAddressWithoutAKey: with INFERGATE_BASE_URL set and no key, the quickstart calls that address,
// says on its first line that it has no key and how to run on the fake instead, and fails before
// sending anything, its chat call needing a key.
func TestAddressWithoutAKey(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t)
	env := map[string]string{"INFERGATE_BASE_URL": gw.URL()}
	var out strings.Builder
	client, stop, err := gatewaytest.Connect(&out, func(name string) string { return env[name] }, fake...)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	err = run(context.Background(), &out, client)
	var invalid *infergate.ValidationError
	if !errors.As(err, &invalid) || invalid.Field != "APIKey" {
		t.Fatalf("err = %v, want a *ValidationError on the API key", err)
	}
	want := "using the gateway at " + gw.URL() + " without an API key (set INFERGATE_API_KEY for the calls that need one; with neither a key nor an address, an in-process fake answers)\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if reqs := gw.Requests(); len(reqs) != 0 {
		t.Errorf("%d requests reached the address, want none without a key", len(reqs))
	}
}
