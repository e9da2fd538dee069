package infergate_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// cooldownClient is a client of gw whose connections close after each answer, so that no goroutine
// of a testing/synctest bubble waits on an idle connection and the bubble's clock can move.
func cooldownClient(t *testing.T, gw *gatewaytest.Server, opts ...infergate.Option) *infergate.Client {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	return gw.Client(append([]infergate.Option{infergate.WithHTTPClient(hc)}, opts...)...)
}

// chatModelsSince is the models of the chat requests gw saw after the first n requests, and the
// count of its requests now.
func chatModelsSince(gw *gatewaytest.Server, n int) (string, int) {
	all := gw.Requests()
	var out []string
	for _, r := range all[n:] {
		if strings.HasSuffix(r.Path, "/chat/completions") {
			m, _ := r.JSON["model"].(string)
			out = append(out, m)
		}
	}
	return strings.Join(out, ","), len(all)
}

// tried describes a call's Fallbacks as "model:skipped" or "model:failed".
func tried(fallbacks []infergate.ModelAttempt) string {
	var out []string
	for _, a := range fallbacks {
		how := "failed"
		if errors.Is(a.Err, infergate.ErrModelCooling) {
			how = "skipped"
		}
		out = append(out, a.Model+":"+how)
	}
	return strings.Join(out, ",")
}

// callA runs one chat call for a, falling back to the client's list, as a Create or a Stream read to
// its end, and returns the call's Fallbacks and error.
func callA(c *infergate.Client, stream bool, opts ...infergate.Option) ([]infergate.ModelAttempt, error) {
	var info infergate.ResponseInfo
	opts = append(opts, infergate.WithResponseInfo(&info))
	if !stream {
		_, err := c.Chat.Create(context.Background(), askModel("a", "hi"), opts...)
		return info.Fallbacks, err
	}
	st, err := c.Chat.Stream(context.Background(), askModel("a", "hi"), opts...)
	if err != nil {
		return info.Fallbacks, err
	}
	defer st.Close()
	for st.Next() {
	}
	return info.Fallbacks, st.Err()
}

// With a model down, the first call spends its retries on it and falls back; the calls after it
// send it nothing and say in Fallbacks that it was skipped, until the cooldown ends.
func TestModelCooldownSkipsModelDown(t *testing.T) {
	t.Parallel()
	for _, stream := range []bool{false, true} {
		gw := gatewaytest.New(t, gatewaytest.WithModelDown("a", gatewaytest.OutageRetryFailed))
		synctest.Test(t, func(t *testing.T) {
			c := cooldownClient(t, gw, infergate.WithFallbackModels("b"), infergate.WithMaxRetries(2),
				infergate.WithModelCooldown(time.Minute))
			fallbacks, err := callA(c, stream)
			sent, n := chatModelsSince(gw, 0)
			if err != nil || tried(fallbacks) != "a:failed" {
				t.Fatalf("stream=%v: first call: err %v, Fallbacks %q; want a failed, b serving", stream, err, tried(fallbacks))
			}
			if !strings.HasPrefix(sent, "a,a") || !strings.HasSuffix(sent, ",b") {
				t.Errorf("stream=%v: first call sent %q; want a with its retries, then b", stream, sent)
			}
			for i := range 3 {
				time.Sleep(19 * time.Second)
				fallbacks, err = callA(c, stream)
				sent, n = chatModelsSince(gw, n)
				if err != nil || sent != "b" || tried(fallbacks) != "a:skipped" {
					t.Errorf("stream=%v: call %d within the cooldown sent %q (err %v, Fallbacks %q); want b only, a skipped",
						stream, i+2, sent, err, tried(fallbacks))
				}
			}
			// Now a minute has passed since a failed, at the end of its retries, just before b served:
			// a is tried again.
			time.Sleep(3 * time.Second)
			fallbacks, err = callA(c, stream)
			if sent, n = chatModelsSince(gw, n); err != nil || !strings.HasPrefix(sent, "a,") || tried(fallbacks) != "a:failed" {
				t.Errorf("stream=%v: after the cooldown sent %q (err %v, Fallbacks %q); want a tried again", stream, sent, err, tried(fallbacks))
			}
			gw.SetModelUp("a")
			fallbacks, err = callA(c, stream)
			if sent, _ := chatModelsSince(gw, n); err != nil || sent != "b" || tried(fallbacks) != "a:skipped" {
				t.Errorf("stream=%v: a's second failure did not cool it again: sent %q (err %v)", stream, sent, err)
			}
		})
	}
}

// When every model of a call is cooling, the call tries them all, in the list's order.
func TestModelCooldownEveryModelCooling(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithModelDown("a", gatewaytest.OutageProviderError),
		gatewaytest.WithModelDown("b", gatewaytest.OutageProviderError))
	synctest.Test(t, func(t *testing.T) {
		c := cooldownClient(t, gw, infergate.WithFallbackModels("b"), infergate.WithMaxRetries(0),
			infergate.WithModelCooldown(time.Minute))
		_, err := callA(c, false)
		var every *infergate.FallbackError
		if !errors.As(err, &every) || tried(every.Attempts) != "a:failed,b:failed" {
			t.Fatalf("first call: err %v; want a and b failed", err)
		}
		_, n := chatModelsSince(gw, 0)
		_, err = callA(c, false)
		if sent, _ := chatModelsSince(gw, n); sent != "a,b" || !errors.As(err, &every) || tried(every.Attempts) != "a:failed,b:failed" {
			t.Errorf("both cooling: sent %q, err %v; want a then b tried", sent, err)
		}
		_, n = chatModelsSince(gw, 0)
		gw.SetModelUp("a")
		fallbacks, err := callA(c, false)
		if sent, _ := chatModelsSince(gw, n); sent != "a" || err != nil || fallbacks != nil {
			t.Errorf("both cooling, a back: sent %q, err %v, Fallbacks %q; want a serving at once", sent, err, tried(fallbacks))
		}
	})
}

// A skipped model stays in a *FallbackError when the models tried after it fail too, and is not
// tried in that call.
func TestModelCooldownSkippedInFallbackError(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithModelDown("a", gatewaytest.OutageProviderError))
	synctest.Test(t, func(t *testing.T) {
		c := cooldownClient(t, gw, infergate.WithFallbackModels("b"), infergate.WithMaxRetries(0),
			infergate.WithModelCooldown(time.Minute))
		if _, err := callA(c, false); err != nil {
			t.Fatal(err)
		}
		gw.SetModelDown("b", gatewaytest.OutageProviderError)
		_, n := chatModelsSince(gw, 0)
		_, err := callA(c, false)
		var every *infergate.FallbackError
		if !errors.As(err, &every) || tried(every.Attempts) != "a:skipped,b:failed" || !errors.Is(err, infergate.ErrModelCooling) {
			t.Errorf("err %v; want a *FallbackError with a skipped and b failed", err)
		}
		if sent, _ := chatModelsSince(gw, n); sent != "b" {
			t.Errorf("sent %q; want b only", sent)
		}
	})
}

// sharedCooldowns is a CooldownStore two clients share, as processes share one through Redis; it
// records the keys it is given.
type sharedCooldowns struct {
	mu    sync.Mutex
	until map[string]time.Time
	keys  []string
}

func (s *sharedCooldowns) Cool(_ context.Context, key, model string, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.until == nil {
		s.until = map[string]time.Time{}
	}
	s.until[key+" "+model] = time.Now().Add(d)
	s.keys = append(s.keys, key)
	return nil
}

func (s *sharedCooldowns) Cooling(_ context.Context, key string, models []string) ([]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = append(s.keys, key)
	out := make([]bool, len(models))
	for i, m := range models {
		out[i] = time.Now().Before(s.until[key+" "+m])
	}
	return out, nil
}

// Two clients sharing a store: once one has seen a model fail, the other skips it from its first
// call. A client with its own store does not. The store is given the credential's quota key, never
// the credential.
func TestModelCooldownSharedStore(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithModelDown("A", gatewaytest.OutageProviderError))
	synctest.Test(t, func(t *testing.T) {
		store := &sharedCooldowns{}
		opts := []infergate.Option{infergate.WithFallbackModels("b"), infergate.WithMaxRetries(0),
			infergate.WithModelCooldown(time.Minute), infergate.WithCooldownStore(store)}
		first, second := cooldownClient(t, gw, opts...), cooldownClient(t, gw, opts...)
		alone := cooldownClient(t, gw, opts[:3]...)
		if _, err := callA(first, false); err != nil {
			t.Fatal(err)
		}
		_, n := chatModelsSince(gw, 0)
		fallbacks, err := callA(second, true)
		if sent, _ := chatModelsSince(gw, n); sent != "b" || err != nil || tried(fallbacks) != "a:skipped" {
			t.Errorf("the other client sent %q (err %v, Fallbacks %q); want b only", sent, err, tried(fallbacks))
		}
		_, n = chatModelsSince(gw, 0)
		if _, err := callA(alone, false); err != nil {
			t.Fatal(err)
		}
		if sent, _ := chatModelsSince(gw, n); sent != "a,b" {
			t.Errorf("a client with its own store sent %q; want a, then b", sent)
		}
		sum := sha256.Sum256([]byte(gatewaytest.DefaultAPIKey))
		want := "key:" + hex.EncodeToString(sum[:])[:16]
		for _, k := range store.keys {
			if k != want {
				t.Errorf("the store was given key %q; want %q", k, want)
			}
		}
		if _, cooled := store.until[want+" a"]; !cooled || len(store.until) != 1 {
			t.Errorf("cooled %v; want a alone, by its lower-case name", store.until)
		}
	})
}

// failingCooldowns is a store that cannot be reached, or that answers for the wrong models.
type failingCooldowns struct{ short bool }

func (s failingCooldowns) Cool(context.Context, string, string, time.Duration) error {
	return errors.New("store unreachable")
}

func (s failingCooldowns) Cooling(_ context.Context, _ string, models []string) ([]bool, error) {
	if s.short {
		return []bool{true}, nil
	}
	return nil, errors.New("store unreachable")
}

// A store that fails never fails a call: the call goes on as if nothing were cooling, and the
// failure is logged.
func TestModelCooldownStoreFailure(t *testing.T) {
	t.Parallel()
	for _, store := range []failingCooldowns{{}, {short: true}} {
		gw := gatewaytest.New(t, gatewaytest.WithModelDown("a", gatewaytest.OutageProviderError))
		var logged strings.Builder
		var mu sync.Mutex
		logger := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logged}, nil))
		c := cooldownClient(t, gw, infergate.WithFallbackModels("b", "c"), infergate.WithMaxRetries(0),
			infergate.WithModelCooldown(time.Minute), infergate.WithCooldownStore(store), infergate.WithLogger(logger))
		for i := range 2 {
			_, n := chatModelsSince(gw, 0)
			fallbacks, err := callA(c, i == 1)
			if sent, _ := chatModelsSince(gw, n); sent != "a,b" || err != nil || tried(fallbacks) != "a:failed" {
				t.Errorf("short=%v, call %d: sent %q (err %v, Fallbacks %q); want a tried, b serving", store.short, i+1, sent, err, tried(fallbacks))
			}
		}
		mu.Lock()
		if !strings.Contains(logged.String(), "level=WARN") || !strings.Contains(logged.String(), "method=Cooling") ||
			strings.Contains(logged.String(), gatewaytest.DefaultAPIKey) {
			t.Errorf("short=%v: logged %q; want the store's failures as warnings", store.short, logged.String())
		}
		if !store.short && !strings.Contains(logged.String(), "store unreachable") {
			t.Errorf("logged %q; want the store's error", logged.String())
		}
		mu.Unlock()
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// Given to one call, the cooldown goes to the client's in-process store: the client's later calls
// with it skip the model. A call with a single model never skips it, but its failure cools it.
func TestModelCooldownAsCallOption(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithModelDown("a", gatewaytest.OutageProviderError))
	synctest.Test(t, func(t *testing.T) {
		c := cooldownClient(t, gw, infergate.WithMaxRetries(0))
		cooldown := infergate.WithModelCooldown(time.Minute)
		if _, err := callA(c, false, cooldown); !errors.Is(err, infergate.ErrServer) {
			t.Fatalf("a alone: err %v; want its 502", err)
		}
		_, n := chatModelsSince(gw, 0)
		if _, err := callA(c, false, cooldown); !errors.Is(err, infergate.ErrServer) {
			t.Fatalf("a alone, cooling: err %v; want its 502", err)
		}
		if sent, _ := chatModelsSince(gw, n); sent != "a" {
			t.Errorf("a call with a alone sent %q; want a", sent)
		}
		_, n = chatModelsSince(gw, 0)
		fallbacks, err := callA(c, false, cooldown, infergate.WithFallbackModels("b"))
		if sent, _ := chatModelsSince(gw, n); sent != "b" || err != nil || tried(fallbacks) != "a:skipped" {
			t.Errorf("sent %q (err %v, Fallbacks %q); want b only", sent, err, tried(fallbacks))
		}
		_, n = chatModelsSince(gw, 0)
		if _, err := callA(c, false, infergate.WithFallbackModels("b")); err != nil {
			t.Fatal(err)
		}
		if sent, _ := chatModelsSince(gw, n); sent != "a,b" {
			t.Errorf("a call without the cooldown sent %q; want a, then b", sent)
		}
	})
}

// A negative cooldown is refused before anything is sent, by NewClient and by a call.
func TestModelCooldownNegative(t *testing.T) {
	t.Parallel()
	_, err := infergate.NewClient(infergate.WithAPIKey("sk"), infergate.WithModelCooldown(-time.Second))
	var invalid *infergate.ValidationError
	if !errors.As(err, &invalid) || invalid.Field != "ModelCooldown" {
		t.Errorf("NewClient: err %v; want a *ValidationError on ModelCooldown", err)
	}
	gw := gatewaytest.New(t)
	_, err = gw.Client().Chat.Create(context.Background(), askModel("a", "hi"), infergate.WithModelCooldown(-time.Second))
	if !errors.As(err, &invalid) || invalid.Field != "ModelCooldown" || len(gw.Requests()) != 0 {
		t.Errorf("a call: err %v, %d requests; want a *ValidationError, nothing sent", err, len(gw.Requests()))
	}
}

// BenchmarkModelCooldown times a Create whose model is down, falling back to one that serves: on a
// client that has not seen the model fail ("first"), which spends the call's retries on it, and on
// one that has ("later"), which skips it. "default" has the default client's retries and backoff
// (2 retries, waits from 500 ms), "quick" gatewaytest's client's waits (1 to 10 ms), what is left
// being the cost of the requests themselves.
func BenchmarkModelCooldown(b *testing.B) {
	gw := gatewaytest.NewServer(gatewaytest.WithModelDown("a", gatewaytest.OutageProviderError))
	defer gw.Close()
	hc := &http.Client{Transport: &http.Transport{}} // one connection pool for every client
	defer hc.CloseIdleConnections()
	for _, backoff := range []struct {
		name      string
		base, max time.Duration
	}{{"default", 500 * time.Millisecond, 8 * time.Second}, {"quick", time.Millisecond, 10 * time.Millisecond}} {
		newClient := func() *infergate.Client {
			c, err := infergate.NewClient(infergate.WithBaseURL(gw.URL()), infergate.WithAPIKey(gatewaytest.DefaultAPIKey),
				infergate.WithHTTPClient(hc), infergate.WithRetryBackoff(backoff.base, backoff.max),
				infergate.WithFallbackModels("b"), infergate.WithModelCooldown(time.Hour))
			if err != nil {
				b.Fatal(err)
			}
			return c
		}
		run := func(b *testing.B, c *infergate.Client, want string) {
			fallbacks, err := callA(c, false)
			if err != nil || tried(fallbacks) != want {
				b.Fatalf("err %v, Fallbacks %q; want %s", err, tried(fallbacks), want)
			}
		}
		b.Run(backoff.name+"/first", func(b *testing.B) {
			for b.Loop() {
				run(b, newClient(), "a:failed")
			}
		})
		b.Run(backoff.name+"/later", func(b *testing.B) {
			c := newClient()
			run(b, c, "a:failed")
			for b.Loop() {
				run(b, c, "a:skipped")
			}
		})
	}
}
