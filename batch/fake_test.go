package batch_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
)

// fake is a scripted gateway: it answers each request by what decide says of it, and records
// what it saw. Its text is the first message's content, or the first input, which the tests make
// the custom_id.
type fake struct {
	decide func(text string, attempt int) (status int, header http.Header)
	// delay, when set, is how long an answer takes; a request whose context ends first gets none.
	delay func(text string, attempt int) time.Duration

	mu    sync.Mutex
	seen  []sent
	tries map[string]int
}

// sent is one request the fake saw.
type sent struct {
	text, key string
	at        time.Time
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
		Input []string `json:"input"`
		Model string   `json:"model"`
	}
	json.Unmarshal(body, &req)
	text := ""
	switch {
	case len(req.Messages) > 0:
		text = req.Messages[0].Content
	case len(req.Input) > 0:
		text = req.Input[0]
	}
	f.mu.Lock()
	if f.tries == nil {
		f.tries = map[string]int{}
	}
	f.tries[text]++
	attempt := f.tries[text]
	f.seen = append(f.seen, sent{text: text, key: r.Header.Get("Idempotency-Key"), at: time.Now()})
	f.mu.Unlock()
	if f.delay != nil {
		select {
		case <-time.After(f.delay(text, attempt)):
		case <-r.Context().Done():
			return
		}
	}
	status, header := http.StatusOK, http.Header(nil)
	if f.decide != nil {
		status, header = f.decide(text, attempt)
	}
	for k, v := range header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Request-Id", fmt.Sprintf("req-%s-%d", text, attempt))
	if status != http.StatusOK {
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"detail":"no (%d) for %s"}`, status, text)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/embeddings") {
		fmt.Fprint(w, `{"object":"list","model":"m","data":[{"object":"embedding","index":0,"embedding":[0.5,0.25]}],"usage":{"prompt_tokens":1,"total_tokens":1}}`)
		return
	}
	model := req.Model
	if model == "" {
		model = "m"
	}
	fmt.Fprintf(w, `{"id":"chatcmpl-%s","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":"answer to %s"},"finish_reason":"stop"}],"usage":{"prompt_tokens":2,"completion_tokens":3,"total_tokens":5}}`, text, model, text)
}

// requests returns what the fake saw, in order.
func (f *fake) requests() []sent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sent(nil), f.seen...)
}

// serve starts f on loopback and returns a client of it that does not retry, so that each answer
// reaches the batch as the fake gave it.
func serve(t *testing.T, f *fake) *infergate.Client {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return fakeClient(t, srv.URL, srv.Client())
}

// inMemory is a client of f that never leaves the process, for tests in a synctest bubble. A
// request whose context ends while f holds it gets the context's error.
func inMemory(t *testing.T, f http.Handler) *infergate.Client {
	return fakeClient(t, "http://gateway.test", &http.Client{Transport: handlerTransport{f}})
}

func fakeClient(t *testing.T, url string, hc *http.Client) *infergate.Client {
	t.Helper()
	c, err := infergate.NewClient(infergate.WithBaseURL(url), infergate.WithAPIKey("sk-test"),
		infergate.WithHTTPClient(hc), infergate.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	return rec.Result(), nil
}
