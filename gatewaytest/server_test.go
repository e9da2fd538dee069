package gatewaytest_test

import (
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/infergate/infergate-go/gatewaytest"
)

func TestURLHasNoAPIPrefix(t *testing.T) {
	s := gatewaytest.New(t)
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") || strings.Contains(s.URL(), "/api") {
		t.Errorf("URL() = %q, want the bare loopback root", s.URL())
	}
}

func TestAuth(t *testing.T) {
	s := gatewaytest.New(t)
	tests := []struct {
		name, method, path, token string
		want                      int
	}{
		{"no header", "GET", "/models", "", 401},
		{"wrong key", "GET", "/models", "sk-wrong", 401},
		{"api key", "GET", "/models", gatewaytest.DefaultAPIKey, 200},
		{"jwt refused on models", "GET", "/models", gatewaytest.DefaultAccessToken, 401},
		{"jwt refused on chat", "POST", "/chat/completions", gatewaytest.DefaultAccessToken, 401},
		{"jwt on history", "GET", "/chat-history/chats", gatewaytest.DefaultAccessToken, 200},
		{"api key on history", "GET", "/chat-history/chats", gatewaytest.DefaultAPIKey, 200},
		{"wrong token on history", "GET", "/chat-history/chats", "nope", 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := call(t, s, tt.method, tt.path, tt.token, nil, "")
			if resp.StatusCode != tt.want {
				t.Fatalf("status = %d, want %d (%s)", resp.StatusCode, tt.want, body)
			}
			if tt.want == 401 {
				jsonEqual(t, body, `{"detail":"Invalid API key"}`)
				if got := resp.Header.Get("WWW-Authenticate"); got != "Bearer" {
					t.Errorf("WWW-Authenticate = %q", got)
				}
			}
		})
	}
}

func TestCustomCredentials(t *testing.T) {
	s := gatewaytest.New(t, gatewaytest.WithAcceptedAPIKey("sk-mine"), gatewaytest.WithAcceptedAccessToken("jwt-mine"))
	for token, want := range map[string]int{"sk-mine": 200, "jwt-mine": 200, gatewaytest.DefaultAPIKey: 401, gatewaytest.DefaultAccessToken: 401} {
		if resp, _ := call(t, s, "GET", "/chat-history/chats", token, nil, ""); resp.StatusCode != want {
			t.Errorf("token %q: status %d, want %d", token, resp.StatusCode, want)
		}
	}
}

func TestCommonHeaders(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := gatewaytest.New(t, gatewaytest.WithClock(func() time.Time { return start }))
	var ids []string
	for _, token := range []string{gatewaytest.DefaultAPIKey, ""} { // 401s carry them too
		resp, _ := call(t, s, "GET", "/models", token, nil, "")
		ids = append(ids, resp.Header.Get("X-Request-Id"))
		want := map[string]string{
			"X-Ratelimit-Limit-Requests":   "500",
			"X-Ratelimit-Limit-Tokens":     "100000",
			"X-Ratelimit-Remaining-Tokens": "100000",
			"X-Ratelimit-Reset-Requests":   "2026-01-02T03:05:05Z",
			"X-Ratelimit-Reset-Tokens":     "2026-01-02T03:05:05Z",
		}
		for k, v := range want {
			if got := resp.Header.Get(k); got != v {
				t.Errorf("%s = %q, want %q", k, got, v)
			}
		}
	}
	if !reflect.DeepEqual(ids, []string{"00000001", "00000002"}) {
		t.Errorf("request ids = %v", ids)
	}
	resp, _ := call(t, s, "GET", "/models", gatewaytest.DefaultAPIKey, nil, "")
	if got := resp.Header.Get("X-RateLimit-Remaining-Requests"); got != "497" {
		t.Errorf("remaining requests = %q, want 497", got)
	}
}

func TestUnknownRoutes(t *testing.T) {
	s := gatewaytest.New(t)
	for _, p := range []string{"/nope", "/chat/models"} {
		resp, body := call(t, s, "GET", p, gatewaytest.DefaultAPIKey, nil, "")
		if resp.StatusCode != 404 {
			t.Errorf("%s: status %d", p, resp.StatusCode)
		}
		jsonEqual(t, body, `{"detail":"Not Found"}`)
	}
	s2 := gatewaytest.New(t, gatewaytest.WithChatModelsRoute())
	resp, body := call(t, s2, "GET", "/chat/models", gatewaytest.DefaultAPIKey, nil, "")
	if resp.StatusCode != 200 || decode(t, body)["object"] != "list" {
		t.Errorf("chat/models with option: %d %s", resp.StatusCode, body)
	}
}

func TestRequestsRecorded(t *testing.T) {
	s := gatewaytest.New(t)
	if _, ok := s.LastRequest(); ok {
		t.Fatal("LastRequest reported a request before any was sent")
	}
	send(t, s, "POST", "/chat/completions?trace=1", userMsg("hi"))
	call(t, s, "GET", "/models", "", nil, "")

	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("got %d requests", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/api/v1/chat/completions" || r.RawQuery != "trace=1" || r.Query().Get("trace") != "1" {
		t.Errorf("recorded %s %s ? %s", r.Method, r.Path, r.RawQuery)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+gatewaytest.DefaultAPIKey {
		t.Errorf("Authorization = %q", got)
	}
	if !strings.Contains(string(r.Body), `"hi"`) || r.RequestID != "00000001" {
		t.Errorf("body %q, id %q", r.Body, r.RequestID)
	}
	if r.JSON["model"] != "llama-3.3-70b" {
		t.Errorf("JSON = %v", r.JSON)
	}
	last, ok := s.LastRequest()
	if !ok || last.Path != "/api/v1/models" || last.Header.Get("Authorization") != "" {
		t.Errorf("LastRequest = %+v", last)
	}
	// Callers get copies: changing one must not change the record.
	r.JSON["model"] = "changed"
	r.Header.Set("Authorization", "x")
	if again := s.Requests()[0]; again.JSON["model"] != "llama-3.3-70b" || again.Header.Get("Authorization") == "x" {
		t.Error("Requests returned shared state")
	}
}

func TestFailNextEnvelopes(t *testing.T) {
	tests := []struct {
		name        string
		reply       gatewaytest.ErrorReply
		status      int
		body        string
		contentType string
		retryAfter  string
	}{
		{"detail", gatewaytest.DetailErrorReply(404, "Model not found"), 404, `{"detail":"Model not found"}`, "application/json", ""},
		{"validation", gatewaytest.ValidationErrorReply("messages", "Field required"), 422,
			`{"detail":[{"type":"value_error","loc":["body","messages"],"msg":"Field required","input":null}]}`, "application/json", ""},
		{"openai", gatewaytest.OpenAIErrorReply(402, gatewaytest.OpenAIErrorFields{Message: "Insufficient balance", Type: "insufficient_balance",
			Code: "insufficient_balance", Extra: map[string]any{"available": "0.1", "estimated_cost": "0.5"}}), 402,
			`{"error":{"message":"Insufficient balance","type":"insufficient_balance","param":null,"code":"insufficient_balance","available":"0.1","estimated_cost":"0.5"}}`,
			"application/json", ""},
		{"numeric code", gatewaytest.OpenAIErrorReply(500, gatewaytest.OpenAIErrorFields{Message: "x", Type: "server_error", Code: 500}), 500,
			`{"error":{"message":"x","type":"server_error","param":null,"code":500}}`, "application/json", ""},
		{"string error with 200", gatewaytest.StringErrorReply(200, "session expired"), 200, `{"error":"session expired"}`, "application/json", ""},
		{"html", gatewaytest.HTMLErrorReply(502, "<html>Bad Gateway</html>"), 502, "", "text/html; charset=utf-8", ""},
		{"rate limit", gatewaytest.RateLimitErrorReply(7 * time.Second), 429,
			`{"error":{"message":"Rate limit exceeded: too many requests per minute","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			"application/json", "7"},
		{"retry after on any", gatewaytest.DetailErrorReply(503, "busy").WithRetryAfter(2 * time.Second), 503, `{"detail":"busy"}`, "application/json", "2"},
		{"sub-second retry after rounds up", gatewaytest.DetailErrorReply(503, "busy").WithRetryAfter(1500 * time.Millisecond), 503,
			`{"detail":"busy"}`, "application/json", "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := gatewaytest.New(t)
			s.FailNext(2, tt.reply)
			for i := range 2 {
				resp, body := send(t, s, "POST", "/chat/completions", userMsg("hi"))
				if resp.StatusCode != tt.status {
					t.Fatalf("attempt %d: status %d, want %d", i, resp.StatusCode, tt.status)
				}
				if tt.body != "" {
					jsonEqual(t, body, tt.body)
				} else if string(body) != "<html>Bad Gateway</html>" {
					t.Errorf("body %q", body)
				}
				if ct := resp.Header.Get("Content-Type"); ct != tt.contentType {
					t.Errorf("Content-Type %q", ct)
				}
				if ra := resp.Header.Get("Retry-After"); ra != tt.retryAfter {
					t.Errorf("Retry-After %q, want %q", ra, tt.retryAfter)
				}
				wantMs := ""
				if d := tt.reply.RetryAfter; d%time.Second != 0 {
					wantMs = strconv.FormatInt(d.Milliseconds(), 10)
				}
				if ms := resp.Header.Get("Retry-After-Ms"); ms != wantMs {
					t.Errorf("Retry-After-Ms %q, want %q", ms, wantMs)
				}
			}
			resp, body := send(t, s, "POST", "/chat/completions", userMsg("hi"))
			if resp.StatusCode != 200 || decode(t, body)["object"] != "chat.completion" {
				t.Errorf("third attempt: %d %s", resp.StatusCode, body)
			}
		})
	}
}

func TestFailNextScopeAndOrder(t *testing.T) {
	s := gatewaytest.New(t, gatewaytest.WithFailures(1, gatewaytest.DetailErrorReply(500, "first")))
	s.FailNext(1, gatewaytest.DetailErrorReply(503, "models only").On("/api/v1/models"))
	s.FailNext(1, gatewaytest.DetailErrorReply(504, "history").On("/api/v1/chat-history/chats"))

	// Bad credentials do not use up a failure.
	if resp, _ := call(t, s, "GET", "/models", "bad", nil, ""); resp.StatusCode != 401 {
		t.Fatalf("bad key: %d", resp.StatusCode)
	}
	steps := []struct {
		method, path string
		want         int
	}{
		{"POST", "/chat/completions", 500}, // the unscoped failure, oldest first
		{"POST", "/chat/completions", 200},
		{"POST", "/chat-history/chats/abc/messages", 504}, // sub-path of the scope
		{"GET", "/models", 503},
		{"GET", "/models", 200},
		{"GET", "/chat-history/chats", 200},
	}
	for i, st := range steps {
		resp, body := send(t, s, st.method, st.path, userMsg("x"))
		if resp.StatusCode != st.want {
			t.Errorf("step %d %s %s: %d, want %d (%s)", i, st.method, st.path, resp.StatusCode, st.want, body)
		}
	}
}

// A route is its URL path, one way only: a path without /api/v1 names no route of the gateway.
func TestFailNextRouteIsTheFullPath(t *testing.T) {
	s := gatewaytest.NewServer()
	defer s.Close()
	s.FailNext(1, gatewaytest.DetailErrorReply(504, "history").On("chat-history/chats"))
	if resp, body := send(t, s, "GET", "/chat-history/chats", nil); resp.StatusCode != 200 {
		t.Errorf("a route named without /api/v1 matched /api/v1/chat-history/chats: %d %s", resp.StatusCode, body)
	}
}

func TestFailNextOnHealth(t *testing.T) {
	s := gatewaytest.New(t)
	s.FailNext(1, gatewaytest.DetailErrorReply(503, "database down").On("/health"))
	if resp, _ := send(t, s, "GET", "/models", nil); resp.StatusCode != 200 {
		t.Fatalf("models took the health failure: %d", resp.StatusCode)
	}
	for _, want := range []int{503, 200} {
		resp, err := http.Get(s.URL() + "/health")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET /health: %d, want %d", resp.StatusCode, want)
		}
	}
	if got := s.Requests()[1].Path; got != "/health" {
		t.Errorf("recorded path %q, the form On takes", got)
	}
}

func TestParallelUse(t *testing.T) {
	s := gatewaytest.New(t)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Enqueue(gatewaytest.Reply{Content: "queued"})
			req, _ := http.NewRequest("POST", s.URL()+"/api/v1/chat/completions",
				strings.NewReader(fmt.Sprintf(`{"stream":%v,"messages":[{"role":"user","content":"m%d"}]}`, i%2 == 0, i)))
			req.Header.Set("Authorization", "Bearer "+gatewaytest.DefaultAPIKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("status %d", resp.StatusCode)
			}
			_ = s.Requests()
		}()
	}
	wg.Wait()
	if n := len(s.Requests()); n != 20 {
		t.Errorf("recorded %d requests", n)
	}
	if p := s.Pending(); p != 0 {
		t.Errorf("%d replies left", p)
	}
}

func TestCloseEndsDelaysAndLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	s := gatewaytest.NewServer(gatewaytest.WithReplies(gatewaytest.Reply{
		Content: "a b c", Quirks: gatewaytest.Quirks{Delay: time.Hour},
	}))
	req, _ := http.NewRequest("POST", s.URL()+"/api/v1/chat/completions", strings.NewReader(`{"stream":true,"messages":[{"role":"user","content":"x"}]}`))
	req.Header.Set("Authorization", "Bearer "+gatewaytest.DefaultAPIKey)
	tr := &http.Transport{}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := resp.Body.Read(buf); err != nil || string(buf) != "data:" {
		t.Fatalf("first read %q %v", buf, err)
	}
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for the scripted delay")
	}
	resp.Body.Close()
	tr.CloseIdleConnections()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before", n, before)
	}
}

var hex8 = regexp.MustCompile(`^[0-9a-f]{8}$`)

func TestRequestIDShape(t *testing.T) {
	s := gatewaytest.New(t)
	resp, _ := send(t, s, "POST", "/chat/completions", userMsg("x"))
	if id := resp.Header.Get("X-Request-Id"); !hex8.MatchString(id) {
		t.Errorf("X-Request-Id %q", id)
	}
}
