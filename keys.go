package infergate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

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
