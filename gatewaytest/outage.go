package gatewaytest

import (
	"net/http"
	"strings"
)

// Outage is how a model that is down fails every chat request for it, the way the deployed gateway
// fails once its own retry on another provider of the model has failed too. A model that is down
// uses no scripted reply: those go to the model that answers.
type Outage int

// The ways a model is down.
const (
	// OutageProviderError answers HTTP 502 with {"error":{"message":...,"type":"provider_error"}}.
	OutageProviderError Outage = iota + 1
	// OutageRetryFailed answers a stream with HTTP 200 and then, before any delta, one in-band
	// {"error":{...,"type":"retry_failed","status":502}} event, ending the stream without [DONE].
	// A request that is not a stream gets OutageProviderError's 502.
	OutageRetryFailed
)

// WithModelDown makes every chat request for model fail as how says, as Server.SetModelDown does.
func WithModelDown(model string, how Outage) ServerOption {
	return func(c *config) {
		if c.down == nil {
			c.down = map[string]Outage{}
		}
		c.down[model] = how
	}
}

// SetModelDown makes every chat request for model fail as how says, until SetModelUp, so that code
// with fallback models can be tested offline. A request is for model when it names model (compared
// without case; "" is a request that names none) or when model serves it: the catalogue model its
// name resolves to, or the default model that serves a request naming none or an unknown name.
func (s *Server) SetModelDown(model string, how Outage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down == nil {
		s.down = map[string]Outage{}
	}
	s.down[strings.ToLower(model)] = how
}

// SetModelUp ends SetModelDown's outage of model.
func (s *Server) SetModelUp(model string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.down, strings.ToLower(model))
}

// outage reports how a request is failed, if the model it named, or the one that serves it, is
// down.
func (s *Server) outage(requested, serving string) (Outage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if how, ok := s.down[strings.ToLower(requested)]; ok {
		return how, true
	}
	how, ok := s.down[strings.ToLower(serving)]
	return how, ok
}

// failModel answers a request for a model that is down.
func failModel(w http.ResponseWriter, how Outage, stream bool) {
	if how == OutageRetryFailed && stream {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		e := StreamErrorEvent{Message: "all providers of the model failed", Type: "retry_failed", Status: http.StatusBadGateway}
		_, _ = w.Write([]byte("data: " + mustJSON(e.body()) + "\n\n"))
		return
	}
	writeJSON(w, http.StatusBadGateway, map[string]any{"error": map[string]any{
		"message": "provider request failed: the model is unavailable", "type": "provider_error"}})
}
