package resp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseURL(t *testing.T) {
	t.Parallel()
	for url, want := range map[string]Options{
		"redis://":                        {Addr: "localhost:6379"},
		"redis://example.com":             {Addr: "example.com:6379"},
		"redis://example.com:7000/":       {Addr: "example.com:7000"},
		"redis://:s3cret@10.0.0.1:6380/2": {Addr: "10.0.0.1:6380", Password: NewSecret("s3cret"), DB: 2},
		"redis://alice:s%2F3@host":        {Addr: "host:6379", Username: "alice", Password: NewSecret("s/3")},
		"redis://[::1]:6379/15":           {Addr: "[::1]:6379", DB: 15},
		"rediss://cache.example.com:6380": {Addr: "cache.example.com:6380"},
		"rediss://:p@cache.example.com/1": {Addr: "cache.example.com:6379", Password: NewSecret("p"), DB: 1},
	} {
		got, err := ParseURL(url)
		if err != nil {
			t.Errorf("%s: %v", url, err)
			continue
		}
		if tls := strings.HasPrefix(url, "rediss:"); (got.TLS != nil) != tls {
			t.Errorf("%s: TLS %v; want %v", url, got.TLS != nil, tls)
		} else if tls && got.TLS.ServerName != strings.Split(got.Addr, ":")[0] {
			t.Errorf("%s: TLS for %q; want the URL's host", url, got.TLS.ServerName)
		}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Options{}, "TLS"),
			cmp.Comparer(func(a, b Secret) bool { return a.reveal() == b.reveal() })); diff != "" {
			t.Errorf("%s (-want +got):\n%s", url, diff)
		}
	}
}

// A URL refused is named by what is wrong with it, never quoted: it may hold a password.
func TestParseURLErrors(t *testing.T) {
	t.Parallel()
	for url, want := range map[string]string{
		"redis://:s3cret@host:port":    "port",
		"redis://:s3cret@host:0":       "port",
		"redis://:s3cret@host:65536":   "port",
		"redis://:s3cret@ho st":        "not a URL",
		"http://:s3cret@host":          "redis://",
		"unix:///tmp/s3cret.sock":      "redis://",
		"redis:s3cret@host":            "no host",
		"redis://s3cret@host":          "without a password",
		"redis://:s3cret@host/x":       "database",
		"redis://:s3cret@host/-1":      "database",
		"redis://:s3cret@host/?db=1":   "parameters",
		"redis://:s3cret@host/#s3cret": "parameters",
		"%zz://:s3cret@host":           "not a URL",
	} {
		_, err := ParseURL(url)
		if err == nil {
			t.Errorf("%s: no error", url)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want it to say %q", url, err, want)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: %v quotes the password", url, err)
		}
	}
}

// Options print their password as its mark, whatever the verb.
func TestSecretNeverPrints(t *testing.T) {
	t.Parallel()
	o := Options{Addr: "host:6379", Password: NewSecret("s3cret")}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		if s := fmt.Sprintf(verb, o); strings.Contains(s, "s3cret") || strings.Contains(s, fmt.Sprintf("%x", "s3cret")) {
			t.Errorf("%s: %s", verb, s)
		}
		if s := fmt.Sprintf(verb, o.Password); s != "[redacted]" {
			t.Errorf("%s of the password: %q; want [redacted]", verb, s)
		}
	}
	if s := fmt.Sprint(NewSecret("")); s != "" {
		t.Errorf("no password prints %q", s)
	}
}
