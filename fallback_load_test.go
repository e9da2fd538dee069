package infergate

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestFallbackUnderLoad runs 500 streams at once through one client bounded to 50 calls in flight,
// against a gateway where one model in three fails every stream before its first delta, each call
// with a fallback list of three: every call is answered by a serving model within its context, the
// server never sees more than 50 requests at once, and nothing is left behind (TestMain checks the
// goroutines, connections' included, once the idle connections are closed).
func TestFallbackUnderLoad(t *testing.T) {
	t.Parallel()
	const calls, bound = 500, 50
	models := []string{"down", "up-1", "up-2"}
	var inFlight, peak atomic.Int64
	// The first requests wait until the bound is reached, so that the calls do pile up against it.
	full := make(chan struct{})
	opened := sync.OnceFunc(func() { close(full) })
	srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		if n >= bound {
			opened()
		}
		select {
		case <-full:
		case <-r.Context().Done():
			return
		}
		var body struct {
			Model string `json:"model"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "text/event-stream")
		if body.Model == "down" {
			_, _ = io.WriteString(w, `data: {"error":{"message":"all providers failed","type":"retry_failed","status":502}}`+"\n\n")
			return
		}
		_, _ = io.WriteString(w, sseEvents(contentChunk("served by ", ""), contentChunk(body.Model, ""),
			contentChunk("", "stop"), "[DONE]"))
	})
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = bound
	t.Cleanup(tr.CloseIdleConnections)
	client := testClient(t, srv.URL, WithHTTPClient(&http.Client{Transport: tr}), WithMaxConcurrency(bound), WithMaxRetries(1))
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for i := range calls {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a guard only
			defer cancel()
			k := i % len(models)
			list := append(append([]string(nil), models[k:]...), models[:k]...)
			req := ChatRequest{Model: list[0], Messages: []Message{UserMessage("hi")}}
			st, err := client.Chat.Stream(ctx, req, WithFallbackModels(list[1:]...))
			if err != nil {
				errs <- err
				return
			}
			defer st.Close()
			var text strings.Builder
			for st.Next() {
				text.WriteString(st.Current().Text())
			}
			switch {
			case st.Err() != nil:
				errs <- st.Err()
			case ctx.Err() != nil:
				errs <- errors.New("the call outlived its context")
			case text.String() != "served by up-1" && text.String() != "served by up-2":
				errs <- errors.New("answered " + text.String())
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if p := peak.Load(); p != bound {
		t.Errorf("the server saw at most %d requests at once; want the bound, %d", p, bound)
	}
	// Each model named first by a third of the calls; the down one's are sent twice (one resend)
	// before falling back.
	if want := int64(calls + (calls+2)/3*2); srv.hits.Load() != want {
		t.Errorf("server saw %d requests; want %d", srv.hits.Load(), want)
	}
	t.Logf("peak in flight %d, %d requests, %d connections", peak.Load(), srv.hits.Load(), srv.conns.Load())
}
