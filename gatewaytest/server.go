package gatewaytest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
)

// DefaultAPIKey is the API key the fake gateway accepts unless WithAcceptedAPIKey says otherwise.
const DefaultAPIKey = "sk-test-key"

// DefaultAccessToken is the JWT the fake gateway accepts on the chat-history routes
// unless WithAcceptedAccessToken says otherwise.
const DefaultAccessToken = "test-jwt-token"

// apiPrefix is where the deployed gateway serves every route but healthPath.
const (
	apiPrefix  = "/api/v1"
	healthPath = "/health"
)

// Rate-limit values sent on every response unless WithRateLimits enforces limits; fixed so tests
// can assert them.
const (
	rateLimitRequests = 500
	rateLimitTokens   = 100000
)

// Server is an in-memory Inference Gateway listening on a loopback address.
// Create it with NewServer and stop it with Close. All methods are safe for
// concurrent use.
type Server struct {
	srv  *httptest.Server
	cfg  config
	done chan struct{} // closed by Close so pending delays end at once

	mu         sync.Mutex
	closed     bool
	counter    uint64 // source of every generated id
	reqCount   int
	requests   []*Request
	replies    []Reply
	failures   []*failure
	transcript Transcript
	session    string // the API key's open session, "" when none
	chats      []*chatRecord
	touch      uint64 // orders chats by last change when the clock stands still
	account    account
	down       map[string]Outage // models that are down, by lower-case name
	catalog    *catalog
	limits     *rateLimits // nil unless WithRateLimits
}

// ServerOption configures a Server at construction.
type ServerOption func(*config)

type config struct {
	apiKey       string
	accessToken  string
	chunkSize    int
	clock        func() time.Time
	replies      []Reply
	failures     []failure
	models       []CatalogModel
	anyModel     bool
	chatModels   bool
	bids         []Bid
	contractBids bool
	noSessions   bool
	transcript   *Transcript
	responder    func(Request) Reply
	clientOpts   []infergate.Option // WithClientOptions
	down         map[string]Outage
	quotas       *infergate.Quotas // WithRateLimits
	moreKeys     []string          // WithAcceptedAPIKeys
}

// WithAcceptedAPIKey makes the server accept key instead of DefaultAPIKey.
func WithAcceptedAPIKey(key string) ServerOption { return func(c *config) { c.apiKey = key } }

// WithAcceptedAccessToken makes the chat-history routes accept token instead of DefaultAccessToken.
func WithAcceptedAccessToken(token string) ServerOption {
	return func(c *config) { c.accessToken = token }
}

// WithChunkSize cuts every stream's bytes into writes of n bytes, each flushed,
// so clients see events split at arbitrary places. n <= 0 writes one event per write.
func WithChunkSize(n int) ServerOption { return func(c *config) { c.chunkSize = n } }

// WithClock sets the clock behind every timestamp (created, created_at,
// updated_at, rate-limit resets) and WithRateLimits' windows. It is read once per request, so a clock
// that advances on each reading gives each request its own instant. The
// default always returns FixedTime(), so output is deterministic.
func WithClock(now func() time.Time) ServerOption { return func(c *config) { c.clock = now } }

// WithReplies queues scripted chat-completion replies, as Server.Enqueue does.
func WithReplies(replies ...Reply) ServerOption {
	return func(c *config) { c.replies = append(c.replies, replies...) }
}

// WithFailures makes the next n matching requests fail with e, as Server.FailNext does.
func WithFailures(n int, e ErrorReply) ServerOption {
	return func(c *config) { c.failures = append(c.failures, failure{remaining: n, reply: e}) }
}

// FixedTime returns the instant the default clock always returns. It is a function so that no test
// can move it under another running in parallel.
func FixedTime() time.Time { return time.Date(2025, 10, 15, 12, 34, 56, 789012000, time.UTC) }

// NewServer starts a fake gateway on a loopback address. Callers should
// defer Close.
func NewServer(opts ...ServerOption) *Server {
	cfg := config{
		apiKey:      DefaultAPIKey,
		accessToken: DefaultAccessToken,
		clock:       FixedTime,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.models == nil {
		cfg.models = DefaultModels()
	}
	if cfg.bids == nil {
		cfg.bids = defaultBids(cfg.models)
	}
	s := &Server{cfg: cfg, done: make(chan struct{}), replies: cfg.replies, catalog: newCatalog(cfg.models)}
	if cfg.quotas != nil {
		s.limits = newRateLimits(*cfg.quotas)
	}
	for model, how := range cfg.down {
		s.SetModelDown(model, how)
	}
	for i := range cfg.failures {
		f := cfg.failures[i]
		s.failures = append(s.failures, &f)
	}
	s.transcript = DefaultTranscript()
	s.account.balance = DefaultBalance()
	if cfg.transcript != nil {
		s.transcript = *cfg.transcript
	}
	s.srv = httptest.NewServer(s.routes())
	return s
}

// New starts a fake gateway for the test t, as NewServer does, and closes it
// when t and its subtests have ended (with t.Cleanup), so a test needs no
// defer. At that point it also reports with t.Errorf every failure injected
// with FailNext or WithFailures that no request used: a route the code under
// test never called, or a route name that matches nothing.
func New(t testing.TB, opts ...ServerOption) *Server {
	t.Helper()
	s := NewServer(opts...)
	t.Cleanup(func() {
		s.Close()
		for _, f := range s.unusedFailures() {
			t.Errorf("gatewaytest: %d %s with status %d on %s never used",
				f.remaining, plural(f.remaining, "injected failure", "injected failures"),
				cmp.Or(f.reply.Status, http.StatusInternalServerError), cmp.Or(f.reply.Route, "any route"))
		}
	})
	return s
}

// URL returns the service root, such as http://127.0.0.1:1234, without the
// /api/v1 prefix under which all routes are served.
func (s *Server) URL() string { return s.srv.URL }

// Close ends pending stream delays, shuts the server down and waits for
// in-flight requests, so no goroutine of the server outlives it.
func (s *Server) Close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.done)
	}
	s.mu.Unlock()
	s.srv.Close()
}

// Enqueue appends scripted replies to the chat-completion queue. Each chat
// completion takes the oldest one; an empty queue yields the responder's reply
// (WithResponder), else the default one, DefaultAnswer of the last user message.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

// Pending reports how many scripted replies have not been used yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.replies)
}

type route struct {
	pattern string // a net/http ServeMux pattern with method
	jwt     bool   // the access token is accepted besides the API key
	handler http.HandlerFunc
}

func (s *Server) routes() http.Handler {
	rs := []route{
		{"POST /api/v1/chat/completions", false, s.handleChat},
		{"POST /api/v1/audio/transcriptions", false, s.handleTranscription},
		{"GET /api/v1/models", false, s.handleModels},
		{"GET /api/v1/models/ratedbids", false, s.handleRatedBids},
		{"POST /api/v1/chat-history/chats", true, s.handleCreateChat},
		{"GET /api/v1/chat-history/chats", true, s.handleListChats},
		{"GET /api/v1/chat-history/chats/{id}", true, s.handleGetChat},
		{"PUT /api/v1/chat-history/chats/{id}", true, s.handleRenameChat},
		{"DELETE /api/v1/chat-history/chats/{id}", true, s.handleDeleteChat},
		{"POST /api/v1/chat-history/chats/{id}/messages", true, s.handleAddMessage},
		{"GET /api/v1/chat-history/chats/{id}/messages", true, s.handleListMessages},
		{"POST /api/v1/embeddings", false, s.handleEmbeddings},
		{"POST /api/v1/audio/speech", false, s.handleSpeech},
		{"GET /api/v1/billing/balance", true, s.handleBalance},
		{"GET /api/v1/billing/usage", true, s.handleUsage},
		{"GET /api/v1/billing/usage/month", true, s.handleUsageMonth},
		{"GET /api/v1/billing/transactions", true, s.handleTransactions},
		{"GET /api/v1/billing/spending", true, s.handleSpending},
		{"POST /api/v1/auth/keys", true, s.tokenOnly(s.handleCreateKey)},
		{"GET /api/v1/auth/keys", true, s.tokenOnly(s.handleListKeys)},
		{"GET /api/v1/auth/keys/default", true, s.tokenOnly(s.handleDefaultKey)},
		{"DELETE /api/v1/auth/keys/{id}", true, s.tokenOnly(s.handleDeleteKey)},
		{"PUT /api/v1/auth/keys/{id}/default", true, s.tokenOnly(s.handleSetDefaultKey)},
	}
	if s.cfg.chatModels {
		rs = append(rs, route{"GET /api/v1/chat/models", false, s.handleModels})
	}
	if !s.cfg.noSessions {
		rs = append(rs,
			route{"POST /api/v1/session/bidsession", false, s.handleBidSession},
			route{"POST /api/v1/session/modelsession", false, s.handleModelSession},
			route{"POST /api/v1/session/closesession", false, s.handleCloseSession},
			route{"POST /api/v1/session/pingsession", false, s.handlePingSession},
		)
	}
	mux := http.NewServeMux()
	for _, rt := range rs {
		mux.Handle(rt.pattern, s.guard(rt))
	}
	// Outside /api/v1 and open to all, as deployed; injected failures still apply.
	mux.Handle("GET "+healthPath, s.failOr(s.handleHealth))
	// The deployed gateway is FastAPI: unknown paths get a JSON detail, not text.
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]any{"detail": "Not Found"})
	})
	return s.record(mux)
}

// record stamps the common headers and keeps a copy of every request.
func (s *Server) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &Request{
			at:       s.cfg.clock().UTC(),
			Method:   r.Method,
			Path:     r.URL.Path,
			RawQuery: r.URL.RawQuery,
			Header:   r.Header.Clone(),
		}
		// Multipart bodies are left unread here: the audio handler streams
		// them, so a huge upload never sits in memory.
		if !isMultipart(r) && r.Body != nil {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				return // the client went away mid-body; nothing to answer
			}
			rec.Body = body
			r.Body = io.NopCloser(bytes.NewReader(body))
			var m map[string]any
			if json.Unmarshal(body, &m) == nil {
				rec.JSON = m
			}
		}
		s.mu.Lock()
		s.reqCount++
		rec.RequestID = fmt.Sprintf("%08x", s.reqCount)
		remaining := max(rateLimitRequests-s.reqCount, 0)
		s.requests = append(s.requests, rec)
		s.mu.Unlock()

		h := w.Header()
		h.Set("X-Request-Id", rec.RequestID)
		if s.limits != nil {
			// The limited routes write their own, as the gateway does.
			next.ServeHTTP(w, r.WithContext(withRecord(r.Context(), rec)))
			return
		}
		reset := rec.at.Add(time.Minute).Format(time.RFC3339)
		h.Set("X-RateLimit-Limit-Requests", strconv.Itoa(rateLimitRequests))
		h.Set("X-RateLimit-Remaining-Requests", strconv.Itoa(remaining))
		h.Set("X-RateLimit-Limit-Tokens", strconv.Itoa(rateLimitTokens))
		h.Set("X-RateLimit-Remaining-Tokens", strconv.Itoa(rateLimitTokens))
		h.Set("X-RateLimit-Reset-Requests", reset)
		h.Set("X-RateLimit-Reset-Tokens", reset)
		next.ServeHTTP(w, r.WithContext(withRecord(r.Context(), rec)))
	})
}

// guard checks credentials, then lets an injected failure answer instead of
// the route, like a gateway that authenticates before anything else.
func (s *Server) guard(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || !(s.acceptsKey(token) || (rt.jwt && token == s.cfg.accessToken)) {
			w.Header().Set("WWW-Authenticate", "Bearer")
			writeJSON(w, http.StatusUnauthorized, map[string]any{"detail": "Invalid API key"})
			return
		}
		s.failOr(rt.handler).ServeHTTP(w, r)
	})
}

// acceptsKey reports whether key is one of the API keys the server accepts.
func (s *Server) acceptsKey(key string) bool {
	return key == s.cfg.apiKey || slices.Contains(s.cfg.moreKeys, key)
}

// failOr lets an injected failure for the request's path answer instead of next.
func (s *Server) failOr(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e, ok := s.takeFailure(r.URL.Path); ok {
			e.write(w)
			return
		}
		next(w, r)
	})
}

// now is the time of request r. The clock is read once per request, so a
// ticking test clock advances one step per request.
func (s *Server) now(r *http.Request) time.Time {
	if rec, ok := r.Context().Value(recordKey{}).(*Request); ok {
		return rec.at
	}
	return s.cfg.clock().UTC()
}

// nextID returns a fresh number for generated ids; ids never repeat within a server.
func (s *Server) nextID() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counter++
	return s.counter
}

// sleep waits d unless the request or the server ends first, so Close never
// waits for a scripted delay. It reports whether the full delay passed.
func (s *Server) sleep(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.done:
	}
	return false
}

func isMultipart(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && strings.HasPrefix(mt, "multipart/")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		// Only the package's own values reach here; a failure is a bug in it.
		panic("gatewaytest: encoding response: " + err.Error())
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// detail writes the FastAPI-style {"detail": "..."} error body.
func detail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"detail": msg})
}

// validation writes a 422 in the FastAPI shape {"detail":[{type,loc,msg,input}]}.
func validation(w http.ResponseWriter, typ string, loc []any, msg string, input any) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": []any{
		map[string]any{"type": typ, "loc": loc, "msg": msg, "input": input},
	}})
}

// intQuery parses an optional integer query parameter, answering 422 like
// FastAPI when it is not an integer.
func intQuery(w http.ResponseWriter, r *http.Request, name string, def int) (int, bool) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, true
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		validation(w, "int_parsing", []any{"query", name},
			"Input should be a valid integer, unable to parse string as an integer", v)
		return 0, false
	}
	return n, true
}
