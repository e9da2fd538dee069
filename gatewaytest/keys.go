package gatewaytest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// AccountKey is a key the account's key routes manage, as Server.APIKeys reports
// it. Key is the full secret.
type AccountKey struct {
	ID        int       // numbered from 1 in order of creation
	Key       string    // the secret the server made, "sk-" and 48 hex digits; key_prefix is its first 9 characters
	Name      string    // as given at creation; empty sends null
	CreatedAt time.Time // by the server's clock
	IsActive  bool      // false once deleted
	IsDefault bool      // set by the set-default route; at most one key has it
}

// APIKeys returns copies of the keys created through POST /auth/keys, oldest
// first, revoked ones included.
func (s *Server) APIKeys() []AccountKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]AccountKey, len(s.account.keys))
	for i, k := range s.account.keys {
		out[i] = *k
	}
	return out
}

// keyPrefixLen is how much of a key the gateway shows as key_prefix.
const keyPrefixLen = 9

func (k *AccountKey) wire() map[string]any {
	return map[string]any{"id": k.ID, "key_prefix": k.Key[:keyPrefixLen], "name": nullable(k.Name),
		"created_at": k.CreatedAt.UTC().Format(TimeLayout), "is_active": k.IsActive, "is_default": k.IsDefault}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// tokenOnly lets a request through only with the access token, as the
// gateway's key routes do: an API key cannot manage keys.
func (s *Server) tokenOnly(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+s.cfg.accessToken {
			w.Header().Set("WWW-Authenticate", "Bearer")
			detail(w, http.StatusUnauthorized, "Could not validate credentials")
			return
		}
		next(w, r)
	}
}

func (s *Server) handleCreateKey(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name *string `json:"name"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		validation(w, "json_invalid", []any{"body"}, "JSON decode error", nil)
		return
	}
	n := s.nextID()
	sum := sha256.Sum256([]byte(fmt.Sprintf("gatewaytest key %d", n)))
	k := &AccountKey{Key: "sk-" + hex.EncodeToString(sum[:24]), CreatedAt: s.now(r), IsActive: true}
	if req.Name != nil {
		k.Name = *req.Name
	}
	s.mu.Lock()
	k.ID = len(s.account.keys) + 1
	s.account.keys = append(s.account.keys, k)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"key": k.Key, "key_prefix": k.Key[:keyPrefixLen], "name": nullable(k.Name)})
}

func (s *Server) handleListKeys(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	out := make([]map[string]any, len(s.account.keys))
	for i, k := range s.account.keys {
		out[i] = k.wire()
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleDeleteKey(w http.ResponseWriter, r *http.Request) {
	s.withKey(w, r, func(k *AccountKey) {
		k.IsActive, k.IsDefault = false, false
	})
}

func (s *Server) handleSetDefaultKey(w http.ResponseWriter, r *http.Request) {
	s.withKey(w, r, func(k *AccountKey) {
		for _, other := range s.account.keys {
			other.IsDefault = false
		}
		k.IsDefault = true
	})
}

// withKey applies change to the active key the path names, under the lock,
// and answers with the key; an unknown or revoked key is a 404.
func (s *Server) withKey(w http.ResponseWriter, r *http.Request, change func(*AccountKey)) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		validation(w, "int_parsing", []any{"path", "key_id"},
			"Input should be a valid integer, unable to parse string as an integer", r.PathValue("id"))
		return
	}
	s.mu.Lock()
	var found *AccountKey
	for _, k := range s.account.keys {
		if k.ID == id && k.IsActive {
			found = k
			change(k)
		}
	}
	var body map[string]any
	if found != nil {
		body = found.wire()
	}
	s.mu.Unlock()
	if found == nil {
		detail(w, http.StatusNotFound, "API key not found")
		return
	}
	writeJSON(w, http.StatusOK, body)
}

// handleDefaultKey answers the default key, else the oldest active one, else
// null.
func (s *Server) handleDefaultKey(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	var chosen *AccountKey
	for _, k := range s.account.keys {
		if !k.IsActive {
			continue
		}
		if k.IsDefault {
			chosen = k
			break
		}
		if chosen == nil {
			chosen = k
		}
	}
	var body any
	if chosen != nil {
		body = chosen.wire()
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, body)
}

// handleHealth answers GET /health, outside /api/v1 and without credentials,
// in the deployed gateway's shape.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"status": "ok", "timestamp": s.now(r).Format(TimeLayout), "version": "gatewaytest",
		"database": "healthy", "redis_cache": map[string]any{"status": "healthy"},
		"model_service": map[string]any{"status": "healthy", "model_count": len(s.cfg.models),
			"default_fallback_model":            s.catalog.defaultFor(chatUse),
			"default_fallback_tts_model":        s.catalog.defaultFor(speechUse),
			"default_fallback_stt_model":        s.catalog.defaultFor(sttUse),
			"default_fallback_embeddings_model": s.catalog.defaultFor(embeddingsUse)},
		"uptime": map[string]any{"seconds": 3600, "human_readable": "1h"},
	})
}
