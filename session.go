package infergate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// SessionsService opens and closes provider sessions. Get it as Client.Sessions.
//
// Requests run inside a session with a provider. Usually nothing needs doing: the gateway opens one
// when needed, or uses the session tied to the API key. Use this service to pick a provider (from
// BidsService.Rated) or to control a session's length. Newer gateway deployments manage sessions
// themselves and have no session routes: every method then fails with an error matching
// ErrSessionsUnsupported.
type SessionsService struct{ client *Client }

// SessionOptions shapes a new session. It encodes to JSON as the request sends it.
type SessionOptions struct {
	// Duration is how long the session lasts, sent in whole seconds; zero leaves it to the gateway.
	Duration time.Duration
	// DirectPayment pays the provider directly instead of through staking.
	DirectPayment bool
	// Failover lets the gateway move the session to another provider when this one fails.
	Failover bool
}

type wireSessionOptions struct {
	SessionDuration int64 `json:"sessionDuration,omitempty"`
	DirectPayment   bool  `json:"directPayment"`
	Failover        bool  `json:"failover"`
}

func (o SessionOptions) wire() (wireSessionOptions, error) {
	if o.Duration != 0 && o.Duration < time.Second {
		return wireSessionOptions{}, invalid("Duration", "must be at least one second, got %v", o.Duration)
	}
	return wireSessionOptions{SessionDuration: int64(o.Duration / time.Second),
		DirectPayment: o.DirectPayment, Failover: o.Failover}, nil
}

// MarshalJSON writes the options as a request sends them: {"sessionDuration":3600,
// "directPayment":false,"failover":true}. A duration that cannot be sent is an error.
func (o SessionOptions) MarshalJSON() ([]byte, error) {
	w, err := o.wire()
	if err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads the shape MarshalJSON writes.
func (o *SessionOptions) UnmarshalJSON(data []byte) error {
	var w wireSessionOptions
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if w.SessionDuration < 0 || w.SessionDuration > int64(math.MaxInt64/time.Second) {
		return fmt.Errorf("infergate: sessionDuration %d is not a duration in seconds", w.SessionDuration)
	}
	*o = SessionOptions{Duration: time.Duration(w.SessionDuration) * time.Second, DirectPayment: w.DirectPayment, Failover: w.Failover}
	return nil
}

// Session is what the gateway says about a session it opened or closed.
type Session struct {
	ID           string `json:"session_id"`               // the session's id; empty when closing found none
	Model        string `json:"model,omitempty"`          // the model it serves, for sessions opened for a model
	APIKeyPrefix string `json:"api_key_prefix,omitempty"` // the start of the API key it is tied to
	Message      string `json:"message,omitempty"`        // the gateway's description of what happened
}

// SessionState is the state of the API key's session as a ping reports it.
type SessionState string

// The states a ping reports. Other values are kept as sent.
const (
	SessionStateAlive     SessionState = "alive"      // the session is open and its provider answers
	SessionStateDead      SessionState = "dead"       // the provider does not answer
	SessionStateExpired   SessionState = "expired"    // the session's duration has passed
	SessionStateNoSession SessionState = "no_session" // the API key has no session
	SessionStateError     SessionState = "error"      // the gateway could not check the session
)

// SessionStatus is the answer to a ping.
type SessionStatus struct {
	State     SessionState `json:"status"`               // the wire's "status": SessionStateAlive, SessionStateDead, …
	Message   string       `json:"message,omitempty"`    // the gateway's description of the state
	SessionID string       `json:"session_id,omitempty"` // the session checked, "0x…"; empty when there is none
	// Success is the gateway's "success" as sent; State tells whether the session is alive.
	Success bool `json:"success"`
}

// Alive reports whether the session can serve requests.
func (s *SessionStatus) Alive() bool { return s != nil && s.State == SessionStateAlive }

// CreateFromBid opens a session with the provider of a bid, as returned by BidsService.Rated.
//
// POST /api/v1/session/bidsession
func (s *SessionsService) CreateFromBid(ctx context.Context, bidID string, so SessionOptions, opts ...Option) (*Session, error) {
	if strings.TrimSpace(bidID) == "" {
		return nil, invalid("BidID", "a bid id is required")
	}
	return s.open(ctx, "/session/bidsession", url.Values{"bid_id": {bidID}}, so, opts)
}

// CreateForModel opens a session for a model, given by name or hex blockchain id; the gateway picks
// the provider.
//
// POST /api/v1/session/modelsession
func (s *SessionsService) CreateForModel(ctx context.Context, model string, so SessionOptions, opts ...Option) (*Session, error) {
	if strings.TrimSpace(model) == "" {
		return nil, invalid("Model", "a model name or hex id is required")
	}
	return s.open(ctx, "/session/modelsession", url.Values{"model_id": {model}}, so, opts)
}

func (s *SessionsService) open(ctx context.Context, path string, query url.Values, so SessionOptions, opts []Option) (*Session, error) {
	body, err := so.wire()
	if err != nil {
		return nil, err
	}
	return s.call(ctx, route{op: "sessions.create", method: http.MethodPost, path: path, query: query, successFlag: true, payload: body}, opts)
}

// Close closes the session tied to the API key. The returned Session's ID is the closed session, or
// empty when there was none.
//
// POST /api/v1/session/closesession
func (s *SessionsService) Close(ctx context.Context, opts ...Option) (*Session, error) {
	return s.call(ctx, route{op: "sessions.close", method: http.MethodPost, path: "/session/closesession", successFlag: true}, opts)
}

// call sends a session request. Its route reports failure as "success": false, which the pipeline
// turns into an *APIError like any other.
func (s *SessionsService) call(ctx context.Context, r route, opts []Option) (*Session, error) {
	var out Session
	if err := run(ctx, s.client, opts, r, &out); err != nil {
		return nil, sessionsError(err)
	}
	return &out, nil
}

// Ping checks the session tied to the API key. A dead, expired or missing session is a state in the
// answer, not an error: an error means the ping itself failed.
//
// POST /api/v1/session/pingsession
func (s *SessionsService) Ping(ctx context.Context, opts ...Option) (*SessionStatus, error) {
	var out SessionStatus
	r := route{op: "sessions.ping", method: http.MethodPost, path: "/session/pingsession"}
	if err := run(ctx, s.client, opts, r, &out); err != nil {
		return nil, sessionsError(err)
	}
	return &out, nil
}

// sessionsError marks the 404 a deployment without session routes answers with: a bare "Not
// Found" from the framework or a proxy. A 404 naming something specific (an unknown bid, say) is
// left as it is.
func sessionsError(err error) error {
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound || !isRouteMissing(apiErr.Message) {
		return err
	}
	return errorf("infergate: %w: %w", ErrSessionsUnsupported, err)
}

// isRouteMissing reports whether a 404's message is the generic one ("Not Found", "404 page not
// found", empty) rather than one about a missing resource.
func isRouteMissing(message string) bool {
	var words []string
	for _, w := range strings.Fields(strings.ToLower(message)) {
		if w != "404" && w != "page" {
			words = append(words, w)
		}
	}
	msg := strings.Join(words, " ")
	return msg == "" || msg == "not found"
}

// HealthService asks the gateway whether it is up. Get it as Client.Health.
type HealthService struct{ client *Client }

// Health is the gateway's report on itself. The fields a readiness check needs are typed; Raw keeps
// the whole report (cache, rate limiter, container and uptime details) as sent.
type Health struct {
	Status    string    `json:"status"`    // "ok" when the gateway answers at all
	Timestamp time.Time `json:"timestamp"` // the gateway's clock, UTC
	Version   string    `json:"version"`   // the deployed gateway's version
	// Database is "healthy", or "unhealthy: " and the reason.
	Database     string             `json:"database"`
	ModelService ModelServiceHealth `json:"model_service"` // the model catalogue's state and default models
	Uptime       time.Duration      `json:"-"`             // how long the gateway has run; zero when not reported
	Raw          json.RawMessage    `json:"-"`             // the report exactly as received
}

// UnmarshalJSON reads the report, keeping it whole in Raw.
func (h *Health) UnmarshalJSON(data []byte) error {
	type plain Health
	var w struct {
		plain
		Timestamp timestamp       `json:"timestamp"`
		Database  json.RawMessage `json:"database"`
		Uptime    json.RawMessage `json:"uptime"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*h = Health(w.plain)
	h.Timestamp = time.Time(w.Timestamp)
	h.Database = scalarText(w.Database)
	var uptime struct {
		Seconds float64 `json:"seconds"`
	}
	// The uptime is a nicety: a report that words it differently is still a health report.
	if json.Unmarshal(w.Uptime, &uptime) == nil && uptime.Seconds > 0 && uptime.Seconds < math.MaxInt64/float64(time.Second) {
		h.Uptime = time.Duration(uptime.Seconds * float64(time.Second))
	}
	h.Raw = bytes.Clone(data)
	return nil
}

// ModelServiceHealth is the state of the gateway's model catalogue.
type ModelServiceHealth struct {
	// Status is "healthy", "warning: no models available", or "unhealthy: " and the reason.
	Status     string `json:"status"`
	ModelCount int    `json:"model_count"` // models the gateway can route to
	// The models used when a request names none, per kind of work.
	DefaultFallbackModel           string `json:"default_fallback_model"`
	DefaultFallbackTTSModel        string `json:"default_fallback_tts_model"`        // for speech (text to speech)
	DefaultFallbackSTTModel        string `json:"default_fallback_stt_model"`        // for transcriptions (speech to text)
	DefaultFallbackEmbeddingsModel string `json:"default_fallback_embeddings_model"` // for embeddings
}

// Healthy reports whether the gateway, its database and its model catalogue all say they are
// healthy, with at least one model to route to. A nil report is not healthy.
func (h *Health) Healthy() bool {
	return h != nil && (strings.EqualFold(h.Status, "ok") || strings.EqualFold(h.Status, "healthy")) && strings.EqualFold(h.Database, "healthy") &&
		strings.EqualFold(h.ModelService.Status, "healthy") && h.ModelService.ModelCount > 0
}

// Check asks the gateway for its health report. The route sits at the service root, outside
// /api/v1, and takes no credential, so it suits readiness probes run before any key is set up. A
// gateway that answers at all says Status "ok"; use Healthy for a stricter check. A proxy's 5xx
// in front of a gateway that is down is an *APIError matching ErrServer.
//
// GET /health
func (s *HealthService) Check(ctx context.Context, opts ...Option) (*Health, error) {
	var out Health
	r := route{op: "health.check", method: http.MethodGet, path: "/health", auth: authNone, outsideAPI: true}
	if err := run(ctx, s.client, opts, r, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// KeysService creates, lists and revokes the account's API keys. Get it as Client.Keys.
//
// These routes take the access token only (WithAccessToken or INFERGATE_ACCESS_TOKEN), the JWT of a
// login: an API key cannot manage keys. Without an access token every method returns a
// *ValidationError before sending anything.
type KeysService struct{ client *Client }

// APIKey describes one of the account's API keys. The key itself is never shown again after
// Create; KeyPrefix tells keys apart.
type APIKey struct {
	ID        int       `json:"id"`         // the key's number: the id of Delete and SetDefault, and UsageRecord.APIKeyID
	KeyPrefix string    `json:"key_prefix"` // the key's first characters, e.g. "sk-AbC123"
	Name      string    `json:"name"`       // the name given at creation; may be empty
	CreatedAt time.Time `json:"created_at"` // when the key was created
	IsActive  bool      `json:"is_active"`  // false once deleted
	IsDefault bool      `json:"is_default"` // the key the web application uses
}

// UnmarshalJSON reads a key, taking a creation time with or without a UTC offset (without one it
// is UTC).
func (k *APIKey) UnmarshalJSON(data []byte) error {
	type plain APIKey
	var w struct {
		plain
		CreatedAt timestamp `json:"created_at"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*k = APIKey(w.plain)
	k.CreatedAt = time.Time(w.CreatedAt)
	return nil
}

// CreatedAPIKey is a key just created. Key is the secret itself, shown this once only: store it
// safely. Printing a CreatedAPIKey with fmt or slog shows the prefix, never the key.
type CreatedAPIKey struct {
	Key       string `json:"key"`        // the secret, "sk-…": send it as WithAPIKey; shown this once only
	KeyPrefix string `json:"key_prefix"` // the key's first characters, as APIKey.KeyPrefix lists it
	Name      string `json:"name"`       // the name given at creation; may be empty
}

// String describes the key without its secret.
func (k CreatedAPIKey) String() string {
	return fmt.Sprintf("infergate.CreatedAPIKey{KeyPrefix: %q, Name: %q, Key: %s}", k.KeyPrefix, k.Name, newSecret(k.Key))
}

// Format prints the key the same way for every verb, %#v and %+v included, so no formatting of it
// reveals the secret.
func (k CreatedAPIKey) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, k.String()) }

// LogValue keeps the secret out of slog records.
func (k CreatedAPIKey) LogValue() slog.Value {
	return slog.GroupValue(slog.String("key_prefix", k.KeyPrefix), slog.String("name", k.Name),
		slog.Any("key", newSecret(k.Key)))
}

// Create makes a new API key, optionally named. The answer is the only time the full key is
// shown.
//
// POST /api/v1/auth/keys
func (s *KeysService) Create(ctx context.Context, name string, opts ...Option) (*CreatedAPIKey, error) {
	type keyName struct {
		Name string `json:"name,omitempty"`
	}
	var out CreatedAPIKey
	r := route{op: "keys.create", method: http.MethodPost, path: "/auth/keys", auth: authAccessToken, payload: keyName{name}}
	if err := run(ctx, s.client, opts, r, &out); err != nil {
		var decodeErr *DecodeError
		if errors.As(err, &decodeErr) {
			// A successful answer that could not be read may hold the new key: keep it out of the error.
			decodeErr.Body = nil
		}
		return nil, err
	}
	return &out, nil
}

// List returns every key of the account, revoked ones included (IsActive false).
//
// GET /api/v1/auth/keys
func (s *KeysService) List(ctx context.Context, opts ...Option) ([]APIKey, error) {
	var out []APIKey
	r := route{op: "keys.list", method: http.MethodGet, path: "/auth/keys", auth: authAccessToken}
	if err := run(ctx, s.client, opts, r, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Delete revokes a key: calls made with it fail from then on. It returns the key as revoked.
//
// DELETE /api/v1/auth/keys/{id}
func (s *KeysService) Delete(ctx context.Context, id int, opts ...Option) (*APIKey, error) {
	return s.key(ctx, http.MethodDelete, id, "", opts)
}

// SetDefault makes a key the account's default, the one the web application uses, and returns it.
//
// PUT /api/v1/auth/keys/{id}/default
func (s *KeysService) SetDefault(ctx context.Context, id int, opts ...Option) (*APIKey, error) {
	return s.key(ctx, http.MethodPut, id, "/default", opts)
}

// Default returns the account's default key: the one set with SetDefault or, when none is, the
// oldest active key. When the account has no active key (the server answers null), the error
// matches ErrNotFound: the key is never nil without an error.
//
// GET /api/v1/auth/keys/default
func (s *KeysService) Default(ctx context.Context, opts ...Option) (*APIKey, error) {
	var out *APIKey
	r := route{op: "keys.default", method: http.MethodGet, path: "/auth/keys/default", auth: authAccessToken}
	if err := run(ctx, s.client, opts, r, &out); err != nil {
		return nil, err
	}
	if out == nil {
		return nil, errNoActiveKey
	}
	return out, nil
}

// errNoActiveKey is Default's answer for an account without an active key.
var errNoActiveKey = fmt.Errorf("%w: the account has no active API key", ErrNotFound)

func (s *KeysService) key(ctx context.Context, method string, id int, suffix string, opts []Option) (*APIKey, error) {
	if id < 1 {
		return nil, invalid("ID", "an API key id is a positive number, got %d", id)
	}
	var out APIKey
	r := route{op: "keys.update", method: method, path: "/auth/keys/" + strconv.Itoa(id) + suffix, auth: authAccessToken}
	if err := run(ctx, s.client, opts, r, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
