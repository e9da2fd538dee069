package gatewaytest

import (
	"fmt"
	"net/http"
	"strconv"
)

// WithoutSessions makes every /session/* route answer 404, as newer
// deployments that manage sessions internally do.
func WithoutSessions() ServerOption { return func(c *config) { c.noSessions = true } }

// Session returns the id of the API key's open session, or "" when none is
// open. Sessions are opened by /session/bidsession or /session/modelsession
// and closed by /session/closesession.
func (s *Server) Session() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.session
}

func (s *Server) handleBidSession(w http.ResponseWriter, r *http.Request) {
	if !r.URL.Query().Has("bid_id") {
		validation(w, "missing", []any{"query", "bid_id"}, "Field required", nil)
		return
	}
	id := s.openSession()
	writeJSON(w, http.StatusOK, map[string]any{
		"success": true, "message": "Session created successfully", "session_id": id,
		"api_key_prefix": s.keyPrefix(),
	})
}

func (s *Server) handleModelSession(w http.ResponseWriter, r *http.Request) {
	model := r.URL.Query().Get("model_id")
	if model == "" {
		validation(w, "missing", []any{"query", "model_id"}, "Field required", nil)
		return
	}
	if _, known := s.catalog.lookup(model); !known && !s.cfg.anyModel {
		detail(w, http.StatusNotFound, fmt.Sprintf("Model '%s' not found", model))
		return
	}
	id := s.openSession()
	writeJSON(w, http.StatusOK, map[string]any{
		"success": true, "message": "Session created successfully", "session_id": id,
		"api_key_prefix": s.keyPrefix(), "model": model,
	})
}

func (s *Server) handleCloseSession(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	id := s.session
	s.session = ""
	s.mu.Unlock()
	if id == "" {
		writeJSON(w, http.StatusOK, map[string]any{"success": true, "message": "No active session to close", "session_id": nil})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "message": "Session closed successfully", "session_id": id})
}

// handlePingSession always answers 200, like the deployed route: the state
// is in the body.
func (s *Server) handlePingSession(w http.ResponseWriter, r *http.Request) {
	id := s.Session()
	if id == "" {
		writeJSON(w, http.StatusOK, map[string]any{"status": "no_session", "message": "No active session found", "success": false})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "alive", "message": "Session is alive", "session_id": id, "success": true})
}

// openSession replaces any open session, as the gateway ties one session to a key.
func (s *Server) openSession() string {
	id := fmt.Sprintf("0x%064x", s.nextID())
	s.mu.Lock()
	s.session = id
	s.mu.Unlock()
	return id
}

func (s *Server) keyPrefix() string {
	return s.cfg.apiKey[:min(len(s.cfg.apiKey), 6)]
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
