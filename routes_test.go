package infergate

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// wireCall is everything the route tests check about a request: method, full URL with its query,
// the headers that matter and the body.
type wireCall struct {
	Method, URL, Authorization, ContentType, Accept, Body string
}

const (
	bearerKey   = "Bearer " + catalogAPIKey
	bearerToken = "Bearer " + catalogJWT
	jsonType    = "application/json"
)

// TestNewRoutesOnTheWire checks the exact request each method of the deployed gateway's extra
// routes sends.
func TestNewRoutesOnTheWire(t *testing.T) {
	from := time.Date(2025, 10, 1, 0, 0, 0, 0, time.FixedZone("CEST", 2*3600))
	to := time.Date(2025, 10, 2, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		opts   []Option
		answer string
		call   func(context.Context, *Client) error
		want   wireCall
	}{
		{name: "embeddings, defaults", answer: `{"data":[{"index":0,"embedding":[1]}]}`,
			call: func(ctx context.Context, c *Client) error {
				_, err := c.Embeddings.Create(ctx, EmbeddingRequest{Input: []string{"hi"}})
				return err
			},
			want: wireCall{"POST", catalogAPIRoot + "/embeddings", bearerKey, jsonType, jsonType,
				`{"input":["hi"],"encoding_format":"base64"}`}},
		{name: "embeddings, every field", opts: []Option{WithSessionID("0xs1")},
			answer: `{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[2]}]}`,
			call: func(ctx context.Context, c *Client) error {
				_, err := c.Embeddings.Create(ctx, EmbeddingRequest{Model: "bge-m3", Input: []string{"a", "b"},
					EncodingFormat: EmbeddingFormatFloat, Dimensions: Ptr(256), User: "u-1", SessionID: "0xs2"})
				return err
			},
			want: wireCall{"POST", catalogAPIRoot + "/embeddings", bearerKey, jsonType, jsonType,
				`{"input":["a","b"],"model":"bge-m3","encoding_format":"float","dimensions":256,"user":"u-1","session_id":"0xs2"}`}},
		{name: "speech, defaults", opts: []Option{WithSessionID("0xs1")}, answer: "ID3",
			call: func(ctx context.Context, c *Client) error {
				_, err := c.Audio.SpeechTo(ctx, io.Discard, SpeechRequest{Input: "Hello"})
				return err
			},
			want: wireCall{"POST", catalogAPIRoot + "/audio/speech", bearerKey, jsonType, "audio/*, application/json;q=0.5",
				`{"input":"Hello","voice":"af_alloy","response_format":"mp3","session_id":"0xs1"}`}},
		{name: "speech, every field", answer: "RIFF",
			call: func(ctx context.Context, c *Client) error {
				_, err := c.Audio.SpeechTo(ctx, io.Discard, SpeechRequest{Input: "Hi", Model: "kokoro", Voice: "am_adam",
					ResponseFormat: SpeechFormatWAV, Speed: Ptr(1.5), SessionID: "0xs2"})
				return err
			},
			want: wireCall{"POST", catalogAPIRoot + "/audio/speech", bearerKey, jsonType, "audio/*, application/json;q=0.5",
				`{"input":"Hi","model":"kokoro","voice":"am_adam","response_format":"wav","speed":1.5,"session_id":"0xs2"}`}},
		{name: "balance with the API key", answer: `{}`,
			call: func(ctx context.Context, c *Client) error { _, err := c.Billing.Balance(ctx); return err },
			want: wireCall{"GET", catalogAPIRoot + "/billing/balance", bearerKey, "", jsonType, ""}},
		{name: "balance with the access token", opts: []Option{WithAccessToken(catalogJWT)}, answer: `{}`,
			call: func(ctx context.Context, c *Client) error { _, err := c.Billing.Balance(ctx); return err },
			want: wireCall{"GET", catalogAPIRoot + "/billing/balance", bearerToken, "", jsonType, ""}},
		{name: "usage with filters", answer: `{"items":[],"has_more":false}`,
			call: func(ctx context.Context, c *Client) error {
				return firstErr(c.Billing.Usage(ctx, UsageFilter{From: from, To: to, Model: "llama-3.3-70b"}))
			},
			want: wireCall{"GET", catalogAPIRoot + "/billing/usage?from=2025-09-30T22%3A00%3A00Z&limit=100&model=llama-3.3-70b&offset=0&to=2025-10-02T00%3A00%3A00Z",
				bearerKey, "", jsonType, ""}},
		{name: "usage for a month", answer: `{"items":[],"has_more":false}`,
			call: func(ctx context.Context, c *Client) error {
				return firstErr(c.Billing.UsageForMonth(ctx, 2025, time.October))
			},
			want: wireCall{"GET", catalogAPIRoot + "/billing/usage/month?limit=100&month=10&offset=0&year=2025",
				bearerKey, "", jsonType, ""}},
		{name: "create key", opts: []Option{WithAccessToken(catalogJWT)}, answer: `{"key":"sk-new","key_prefix":"sk-n"}`,
			call: func(ctx context.Context, c *Client) error { _, err := c.Keys.Create(ctx, "ci"); return err },
			want: wireCall{"POST", catalogAPIRoot + "/auth/keys", bearerToken, jsonType, jsonType, `{"name":"ci"}`}},
		{name: "create unnamed key", opts: []Option{WithAccessToken(catalogJWT)}, answer: `{"key":"sk-new","key_prefix":"sk-n"}`,
			call: func(ctx context.Context, c *Client) error { _, err := c.Keys.Create(ctx, ""); return err },
			want: wireCall{"POST", catalogAPIRoot + "/auth/keys", bearerToken, jsonType, jsonType, `{}`}},
		{name: "list keys", opts: []Option{WithAccessToken(catalogJWT)}, answer: `[]`,
			call: func(ctx context.Context, c *Client) error { _, err := c.Keys.List(ctx); return err },
			want: wireCall{"GET", catalogAPIRoot + "/auth/keys", bearerToken, "", jsonType, ""}},
		{name: "delete key", opts: []Option{WithAccessToken(catalogJWT)}, answer: `{"id":7}`,
			call: func(ctx context.Context, c *Client) error { _, err := c.Keys.Delete(ctx, 7); return err },
			want: wireCall{"DELETE", catalogAPIRoot + "/auth/keys/7", bearerToken, "", jsonType, ""}},
		{name: "set default key", opts: []Option{WithAccessToken(catalogJWT)}, answer: `{"id":7}`,
			call: func(ctx context.Context, c *Client) error { _, err := c.Keys.SetDefault(ctx, 7); return err },
			want: wireCall{"PUT", catalogAPIRoot + "/auth/keys/7/default", bearerToken, "", jsonType, ""}},
		{name: "default key", opts: []Option{WithAccessToken(catalogJWT)}, answer: `{"id":7}`,
			call: func(ctx context.Context, c *Client) error { _, err := c.Keys.Default(ctx); return err },
			want: wireCall{"GET", catalogAPIRoot + "/auth/keys/default", bearerToken, "", jsonType, ""}},
		{name: "health: service root, no credential", opts: []Option{WithAccessToken(catalogJWT)}, answer: `{"status":"ok"}`,
			call: func(ctx context.Context, c *Client) error { _, err := c.Health.Check(ctx); return err },
			want: wireCall{"GET", "https://gw.test/health", "", "", jsonType, ""}},
		{name: "health below a path prefix", opts: []Option{WithBaseURL("https://gw.test/proxy/api/v1/")}, answer: `{"status":"ok"}`,
			call: func(ctx context.Context, c *Client) error { _, err := c.Health.Check(ctx); return err },
			want: wireCall{"GET", "https://gw.test/proxy/health", "", "", jsonType, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mock, calls := recordAll(t, 200, tt.answer, "")
			if err := tt.call(t.Context(), mockClient(t, mock, tt.opts...)); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]wireCall{tt.want}, calls()); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

// firstErr ranges over a sequence and returns its error, if any.
func firstErr[T any](seq func(func(T, error) bool)) error {
	for _, err := range seq {
		if err != nil {
			return err
		}
	}
	return nil
}

func TestNewRoutesErrorEnvelopes(t *testing.T) {
	checkEnvelopes(t, map[string]func(context.Context, *Client) error{
		"Embeddings.Create": func(ctx context.Context, c *Client) error {
			_, err := c.Embeddings.Create(ctx, EmbeddingRequest{Input: []string{"x"}})
			return err
		},
		"Audio.Speech": func(ctx context.Context, c *Client) error {
			audio, err := c.Audio.Speech(ctx, SpeechRequest{Input: "x"})
			if err == nil {
				audio.Close()
			}
			return err
		},
		"Billing.Balance": func(ctx context.Context, c *Client) error { _, err := c.Billing.Balance(ctx); return err },
		"Billing.Usage":   func(ctx context.Context, c *Client) error { return firstErr(c.Billing.Usage(ctx, UsageFilter{})) },
		"Billing.UsageForMonth": func(ctx context.Context, c *Client) error {
			return firstErr(c.Billing.UsageForMonth(ctx, 2025, time.May))
		},
		"Keys.Create":     func(ctx context.Context, c *Client) error { _, err := c.Keys.Create(ctx, "k"); return err },
		"Keys.List":       func(ctx context.Context, c *Client) error { _, err := c.Keys.List(ctx); return err },
		"Keys.Delete":     func(ctx context.Context, c *Client) error { _, err := c.Keys.Delete(ctx, 1); return err },
		"Keys.SetDefault": func(ctx context.Context, c *Client) error { _, err := c.Keys.SetDefault(ctx, 1); return err },
		"Keys.Default":    func(ctx context.Context, c *Client) error { _, err := c.Keys.Default(ctx); return err },
		"Health.Check":    func(ctx context.Context, c *Client) error { _, err := c.Health.Check(ctx); return err },
	})
}

// TestNewRoutesRefuseBeforeSending checks that every bad call is a *ValidationError and reaches
// no server.
func TestNewRoutesRefuseBeforeSending(t *testing.T) {
	t.Parallel()
	many := make([]string, MaxEmbeddingInputs+1)
	for i := range many {
		many[i] = "x"
	}
	tests := map[string]func(context.Context, *Client) error{
		"embeddings: no input": func(ctx context.Context, c *Client) error {
			_, err := c.Embeddings.Create(ctx, EmbeddingRequest{Model: "m"})
			return err
		},
		"embeddings: blank text": func(ctx context.Context, c *Client) error {
			_, err := c.Embeddings.Create(ctx, EmbeddingRequest{Input: []string{"ok", " \n"}})
			return err
		},
		"embeddings: too many texts": func(ctx context.Context, c *Client) error {
			_, err := c.Embeddings.Create(ctx, EmbeddingRequest{Input: many})
			return err
		},
		"embeddings: unknown format": func(ctx context.Context, c *Client) error {
			_, err := c.Embeddings.Create(ctx, EmbeddingRequest{Input: []string{"x"}, EncodingFormat: "int8"})
			return err
		},
		"embeddings: zero dimensions": func(ctx context.Context, c *Client) error {
			_, err := c.Embeddings.Create(ctx, EmbeddingRequest{Input: []string{"x"}, Dimensions: Ptr(0)})
			return err
		},
		"speech: no input": func(ctx context.Context, c *Client) error {
			_, err := c.Audio.Speech(ctx, SpeechRequest{Voice: "af_alloy"})
			return err
		},
		"speech: unknown format": func(ctx context.Context, c *Client) error {
			_, err := c.Audio.Speech(ctx, SpeechRequest{Input: "x", ResponseFormat: "ogg"})
			return err
		},
		"speech: too slow": func(ctx context.Context, c *Client) error {
			_, err := c.Audio.Speech(ctx, SpeechRequest{Input: "x", Speed: Ptr(0.2)})
			return err
		},
		"speech: too fast": func(ctx context.Context, c *Client) error {
			_, err := c.Audio.SpeechTo(ctx, io.Discard, SpeechRequest{Input: "x", Speed: Ptr(4.01)})
			return err
		},
		"usage: To before From": func(ctx context.Context, c *Client) error {
			return firstErr(c.Billing.Usage(ctx, UsageFilter{From: time.Unix(100, 0), To: time.Unix(50, 0)}))
		},
		"usage: month 13": func(ctx context.Context, c *Client) error {
			return firstErr(c.Billing.UsageForMonth(ctx, 2025, 13))
		},
		"usage: year 0": func(ctx context.Context, c *Client) error {
			return firstErr(c.Billing.UsageForMonth(ctx, 0, time.May))
		},
		"keys: no access token": func(ctx context.Context, c *Client) error {
			_, err := c.Keys.List(ctx)
			return err
		},
		"keys: id 0 (with a token)": func(ctx context.Context, c *Client) error {
			_, err := c.Keys.Delete(ctx, 0)
			return err
		},
	}
	for name, call := range tests {
		t.Run(name, func(t *testing.T) {
			mock, calls := recordAll(t, 200, `{}`, "")
			var opts []Option
			if name == "keys: id 0 (with a token)" {
				opts = append(opts, WithAccessToken(catalogJWT))
			}
			err := call(t.Context(), mockClient(t, mock, opts...))
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("err = %v (%T), want a *ValidationError", err, err)
			}
			if n := len(calls()); n != 0 {
				t.Errorf("%d requests were sent", n)
			}
		})
	}
}
