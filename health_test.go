package infergate

import (
	"testing"
	"time"
)

func TestHealthCheck(t *testing.T) {
	t.Parallel()
	body := `{"status":"ok","timestamp":"2025-10-15T12:34:56.789012","version":"1.4.2","database":"healthy",
		"redis_cache":{"status":"healthy"},"model_service":{"status":"healthy","model_count":42,"cache_info":{},
		"default_fallback_model":"llama-3.3-70b","default_fallback_tts_model":"kokoro","default_fallback_stt_model":"whisper",
		"default_fallback_embeddings_model":"bge-m3"},"uptime":{"seconds":5400,"human_readable":"1h 30m"}}`
	mock, _ := recordAll(t, 200, body, "application/json")
	h, err := mockClient(t, mock, WithAPIKey("")).Health.Check(t.Context())
	if err != nil {
		t.Fatalf("health needs no credential: %v", err)
	}
	if h.Status != "ok" || h.Version != "1.4.2" || h.Database != "healthy" || !h.Timestamp.Equal(time.Date(2025, 10, 15, 12, 34, 56, 789012000, time.UTC)) ||
		h.ModelService != (ModelServiceHealth{Status: "healthy", ModelCount: 42, DefaultFallbackModel: "llama-3.3-70b",
			DefaultFallbackTTSModel: "kokoro", DefaultFallbackSTTModel: "whisper", DefaultFallbackEmbeddingsModel: "bge-m3"}) ||
		h.Uptime != 90*time.Minute || string(h.Raw) != body || !h.Healthy() {
		t.Errorf("health = %+v", h)
	}
}

func TestHealthHealthy(t *testing.T) {
	t.Parallel()
	ok := Health{Status: "ok", Database: "healthy", ModelService: ModelServiceHealth{Status: "healthy", ModelCount: 1}}
	for name, h := range map[string]Health{
		"database down": {Status: "ok", Database: "unhealthy: timeout", ModelService: ok.ModelService},
		"no models":     {Status: "ok", Database: "healthy", ModelService: ModelServiceHealth{Status: "warning: no models available"}},
		"odd database":  {Status: "ok", ModelService: ok.ModelService},
	} {
		if h.Healthy() {
			t.Errorf("%s: Healthy() = true", name)
		}
	}
	if !ok.Healthy() {
		t.Error("a healthy report is not Healthy")
	}
	var h Health
	if err := h.UnmarshalJSON([]byte(`{"status":"ok","database":{"state":"up"},"uptime":"a while"}`)); err != nil || h.Database != `{"state":"up"}` || h.Uptime != 0 {
		t.Errorf("odd shapes: %+v, %v", h, err)
	}
}
