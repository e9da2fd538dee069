package infergate

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"time"
)

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
