package infergate

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/infergate/infergate-go/internal/quota"
)

// EmbeddingsService turns texts into vectors for search, clustering and retrieval. Get it as
// Client.Embeddings.
type EmbeddingsService struct{ client *Client }

// EmbeddingFormat is how the gateway encodes the vectors on the wire. It does not change what
// Create returns: vectors are []float32 either way.
type EmbeddingFormat string

// The wire encodings of embeddings.
const (
	// EmbeddingFormatBase64 sends each vector as base64 of little-endian float32s: about a third of the
	// bytes of EmbeddingFormatFloat and many times faster to decode (see the figures in docs/chat.md). It is
	// what an empty EncodingFormat asks for.
	EmbeddingFormatBase64 EmbeddingFormat = "base64"
	// EmbeddingFormatFloat sends each vector as a JSON array of numbers, the gateway's own default.
	EmbeddingFormatFloat EmbeddingFormat = "float"
)

// MaxEmbeddingInputs is the most texts one request may carry, the limit of the OpenAI API the
// gateway's providers implement. Split larger batches into several requests.
const MaxEmbeddingInputs = 2048

// EmbeddingRequest names the texts to embed and how.
type EmbeddingRequest struct {
	// Model is the embedding model's name or hex id; empty lets the gateway choose its default.
	Model string `json:"model,omitempty"`
	// Input holds the texts, one vector each, at most MaxEmbeddingInputs of them, none empty. It
	// is always sent as a JSON list, even with one text, so that answers always have one entry per
	// text at the same index.
	Input []string `json:"input"`
	// EncodingFormat is the wire encoding; empty means EmbeddingFormatBase64.
	EncodingFormat EmbeddingFormat `json:"encoding_format,omitempty"`
	// Dimensions shortens the vectors to this length, on models that support it; nil keeps the
	// model's own length.
	Dimensions *int `json:"dimensions,omitempty"`
	// User identifies your end user to the provider, for abuse monitoring.
	User string `json:"user,omitempty"`
	// SessionID runs the request in this provider session; empty uses the client's (WithSessionID)
	// or, failing that, the session tied to the API key.
	SessionID string `json:"session_id,omitempty"`
	// Extra holds fields this type does not model, merged into the request's top-level JSON; a key
	// the request already sends is a *ValidationError.
	Extra map[string]any `json:"-"`
}

// Validate reports the first rule the request breaks, as a *ValidationError. Create calls it
// before sending anything.
func (r *EmbeddingRequest) Validate() error {
	switch n := len(r.Input); {
	case n == 0:
		return invalid("Input", "give at least one text")
	case n > MaxEmbeddingInputs:
		return invalid("Input", "%d texts is more than the %d one request may carry: split them into batches", n, MaxEmbeddingInputs)
	}
	for i, text := range r.Input {
		if strings.TrimSpace(text) == "" {
			return invalid(fmt.Sprintf("Input[%d]", i), "must not be empty")
		}
	}
	switch r.EncodingFormat {
	case "", EmbeddingFormatBase64, EmbeddingFormatFloat:
	default:
		return invalid("EncodingFormat", "%q is not float or base64", r.EncodingFormat)
	}
	if r.Dimensions != nil && *r.Dimensions < 1 {
		return invalid("Dimensions", "must be at least 1, got %d", *r.Dimensions)
	}
	return checkExtra(r.Extra, reflect.TypeFor[wireEmbeddingRequest]())
}

type wireEmbeddingRequest struct {
	Input          []string        `json:"input"`
	Model          string          `json:"model,omitempty"`
	EncodingFormat EmbeddingFormat `json:"encoding_format"`
	Dimensions     *int            `json:"dimensions,omitempty"`
	User           string          `json:"user,omitempty"`
	SessionID      string          `json:"session_id,omitempty"`
}

// EmbeddingResponse is the vectors for a request's texts.
type EmbeddingResponse struct {
	Object string      `json:"object"` // "list"
	Model  string      `json:"model"`  // the model that made the vectors, as the provider names it
	Data   []Embedding `json:"data"`   // one per input text, in the order of EmbeddingRequest.Input
	// Usage is what the request cost in tokens: PromptTokens and TotalTokens (an embedding
	// generates no completion tokens).
	Usage Usage `json:"usage"`
}

// Embedding is the vector of one text.
type Embedding struct {
	Object    string    `json:"object"`    // "embedding"
	Index     int       `json:"index"`     // the text's position in EmbeddingRequest.Input
	Embedding []float32 `json:"embedding"` // the vector; its length is the model's dimension
}

// Create embeds the texts of req and returns one vector per text, in the order of req.Input.
// Vectors are decoded from whichever encoding the server sent, a float array or base64, so a
// server that ignores EncodingFormat cannot corrupt them. An answer that lacks a vector for some
// text (or sends it empty: null, [] or ""), has one twice, or has vectors of different lengths is a
// *DecodeError rather than a silently shorter list. Like chat, the route is billed and
// rate-limited: errors match ErrInsufficientBalance (402) and ErrRateLimited (429).
//
// POST /api/v1/embeddings
func (s *EmbeddingsService) Create(ctx context.Context, req EmbeddingRequest, opts ...Option) (*EmbeddingResponse, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	c, err := s.client.configure(opts)
	if err != nil {
		return nil, err
	}
	wire := wireEmbeddingRequest{Input: req.Input, Model: req.Model, EncodingFormat: req.EncodingFormat,
		Dimensions: req.Dimensions, User: req.User, SessionID: c.sessionFor(req.SessionID)}
	if wire.EncodingFormat == "" {
		wire.EncodingFormat = EmbeddingFormatBase64
	}
	body, err := json.Marshal(wire)
	if err == nil {
		body, err = mergeExtra(body, req.Extra)
	}
	if err != nil {
		return nil, err
	}
	out := embeddingAnswer{inputs: len(req.Input)}
	r := route{op: OperationEmbeddings, method: http.MethodPost, path: "/embeddings", body: body,
		contentType: "application/json", model: req.Model}
	if c.limiter != nil {
		r.tokens = quota.Estimate(quota.EmbeddingsInput(req.Input))
	}
	if c.observed() {
		r.request = Ptr(req)
	}
	if err := exchange(ctx, c, &r, func(resp *http.Response, body []byte) (any, error) {
		return &out.EmbeddingResponse, c.decodeJSON(&r, resp, body, &out)
	}); err != nil {
		return nil, err
	}
	return &out.EmbeddingResponse, nil
}

// embeddingAnswer decodes a response and checks it against the request while the pipeline still holds
// the body, so that an incomplete answer becomes a *DecodeError that keeps the body and request id.
type embeddingAnswer struct {
	EmbeddingResponse
	inputs int
}

func (a *embeddingAnswer) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &a.EmbeddingResponse); err != nil {
		return err
	}
	return a.inOrder(a.inputs)
}

// inOrder sorts the vectors by index and checks there is exactly one per input, all of one length.
func (r *EmbeddingResponse) inOrder(inputs int) error {
	slices.SortStableFunc(r.Data, func(a, b Embedding) int { return cmp.Compare(a.Index, b.Index) })
	for i, e := range r.Data {
		if e.Index != i {
			return fmt.Errorf("no vector for input %d, or more than one (indexes %s)", i, indexList(r.Data))
		}
		if n, first := len(e.Embedding), len(r.Data[0].Embedding); n != first {
			return fmt.Errorf("vector %d has %d dimensions, vector 0 has %d", i, n, first)
		}
	}
	if len(r.Data) != inputs {
		return fmt.Errorf("%d vectors for %d inputs", len(r.Data), inputs)
	}
	return nil
}

func indexList(data []Embedding) string {
	const shown = 10
	parts := make([]string, 0, shown+1)
	for i, e := range data {
		if i == shown {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprint(e.Index))
	}
	return strings.Join(parts, ",")
}

type wireEmbedding struct {
	Object    string          `json:"object"`
	Index     int             `json:"index"`
	Embedding json.RawMessage `json:"embedding"`
}

// UnmarshalJSON reads a vector sent as a JSON array of numbers or as a base64 string of
// little-endian float32s.
func (e *Embedding) UnmarshalJSON(b []byte) error {
	var w wireEmbedding
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	vector, err := decodeVector(w.Embedding)
	if err != nil {
		return errorf("infergate: embedding %d: %w", w.Index, err)
	}
	*e = Embedding{Object: w.Object, Index: w.Index, Embedding: vector}
	return nil
}

// decodeVector reads a vector in either encoding. A vector of no numbers (null, [] or "") is an
// error: no model makes one, and a caller would divide by its length.
func decodeVector(raw json.RawMessage) ([]float32, error) {
	vector, err := decodeAnyVector(raw)
	if err == nil && len(vector) == 0 {
		err = errors.New("no vector")
	}
	return vector, err
}

func decodeAnyVector(raw json.RawMessage) ([]float32, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		var vector []float32
		if err := json.Unmarshal(raw, &vector); err != nil {
			return nil, fmt.Errorf("neither a list of numbers nor a base64 string: %w", err)
		}
		return vector, nil
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return nil, err
	}
	return decodeBase64Vector(text)
}

// decodeBase64Vector reads the encoding OpenAI uses for base64 embeddings: standard base64 of the
// float32 values, little-endian, one after the other.
func decodeBase64Vector(text string) ([]float32, error) {
	raw, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return nil, fmt.Errorf("base64: %w", err)
	}
	if len(raw)%4 != 0 {
		return nil, fmt.Errorf("base64 vector has %d bytes, not a whole number of float32s", len(raw))
	}
	vector := make([]float32, len(raw)/4)
	for i := range vector {
		vector[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return vector, nil
}
