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
	"sync"

	"github.com/infergate/infergate-go/internal/fanout"
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
	if n := len(r.Input); n > MaxEmbeddingInputs {
		return invalid("Input", "%d texts is more than the %d one request may carry: split them into batches, as Embeddings.CreateMany does", n, MaxEmbeddingInputs)
	}
	return r.validateTexts()
}

// validateTexts is Validate without the bound on the number of texts, which CreateMany has not.
func (r *EmbeddingRequest) validateTexts() error {
	if len(r.Input) == 0 {
		return invalid("Input", "give at least one text")
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
	return s.create(ctx, c, req)
}

// create sends req, which is valid, with the call's configuration c.
func (s *EmbeddingsService) create(ctx context.Context, c *config, req EmbeddingRequest) (*EmbeddingResponse, error) {
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
		return &out.EmbeddingResponse, decodeJSON(c, &r, resp, body, &out)
	}); err != nil {
		return nil, err
	}
	return &out.EmbeddingResponse, nil
}

// embeddingPartsInFlight is how many parts of one CreateMany are sent at once at most: enough to
// keep the gateway busy with large parts, few enough to leave a client's places (WithMaxConcurrency)
// and a provider's capacity to other calls.
const embeddingPartsInFlight = 4

// CreateMany embeds any number of texts: it sends them in parts, requests of consecutive texts, in
// parallel, and returns what Create would for one request: a vector per text in the order of
// req.Input, each Embedding's Index its text's position in req.Input, Usage the sum of the parts'
// and Model the first part's answer's (parts may be served by different nodes).
//
// A part carries at most MaxEmbeddingInputs texts and, because the gateway refuses a request whose
// admission estimate exceeds its model group's token quota however long it waits, at most that
// quota's tokens: the quota of the client's limiter when it is NewLimiter's, else GatewayQuotas'
// (no bound for the embedding group; 100,000 tokens for a model no group names, or no model).
// Parts are filled in order, as full as the bounds allow, so that they are as few as possible.
// Everything is validated before anything is sent: req as Create validates it but for the count of
// texts, so that no text may be empty, and no text, or a text whose estimate alone exceeds the
// quota, is a *ValidationError.
//
// At most four parts are in flight at once, fewer when the client's WithMaxConcurrency is lower.
// Each part is a call of its own for the client's admission (WithMaxConcurrency, WithLimiter, which
// paces parts within the quota), retries, observers and WithTimeout, which bounds each part, not
// the whole: bound that with ctx. When a part fails, the parts in flight are cancelled and no other
// is sent; once they have ended, CreateMany returns an *EmbeddingPartError naming the part and
// wrapping its error (errors.As reaches its *APIError). When ctx ends, that is the error of the
// part it interrupted, or of the first part not sent, and matches ctx's error. Parts whose vectors
// differ in length from the first part's fail the call the same way. WithResponseInfo describes the
// response of the part answered last, or, when the call fails, of the part that failed (zero when
// it had no answer).
func (s *EmbeddingsService) CreateMany(ctx context.Context, req EmbeddingRequest, opts ...Option) (*EmbeddingResponse, error) {
	if err := req.validateTexts(); err != nil {
		return nil, err
	}
	c, err := s.client.configure(opts)
	if err != nil {
		return nil, err
	}
	q, group := c.embeddingQuota(req.Model)
	parts, tooLarge := splitEmbeddings(req.Input, q.Tokens)
	if tooLarge >= 0 {
		return nil, invalid(fmt.Sprintf("Input[%d]", tooLarge), "its admission estimate, %d tokens, exceeds the %d a window of quota group %s: the gateway refuses it however long it waits",
			quota.Estimate(quota.StringContent(req.Input[tooLarge])), q.Tokens, group)
	}
	answers := make([]*EmbeddingResponse, len(parts))
	infos := make([]ResponseInfo, len(parts))
	var mu sync.Mutex
	last := -1 // the part answered last
	workers := embeddingPartsInFlight
	if c.maxConcurrency > 0 {
		workers = min(workers, c.maxConcurrency)
	}
	failed, err := fanout.Run(ctx, len(parts), workers, func(ctx context.Context, i int) error {
		part := req
		part.Input = req.Input[parts[i].first : parts[i].first+parts[i].count]
		pc := c
		if len(c.responseInfos) > 0 { // each part fills its own, so that no two write one at once
			apart := *c
			apart.responseInfos = []*ResponseInfo{&infos[i]}
			pc = &apart
		}
		answer, err := s.create(ctx, pc, part)
		if err == nil {
			mu.Lock()
			answers[i], last = answer, i
			mu.Unlock()
		}
		return err
	})
	var out *EmbeddingResponse
	if err == nil {
		out, failed, err = joinEmbeddings(answers, parts, len(req.Input))
	}
	if err != nil {
		last = failed
		err = &EmbeddingPartError{Part: failed, First: parts[failed].first, Count: parts[failed].count, Err: err}
	}
	for j, dst := range c.responseInfos {
		*dst = infos[last]
		if j > 0 {
			dst.Header = infos[last].Header.Clone()
		}
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// joinEmbeddings is the answer of every part as one: the vectors in order, each Index its text's
// position in the whole, and the usage summed. A part whose vectors differ in length from the first
// part's fails, with the index of that part.
func joinEmbeddings(answers []*EmbeddingResponse, parts []embeddingPart, texts int) (*EmbeddingResponse, int, error) {
	first := answers[0]
	out := &EmbeddingResponse{Object: first.Object, Model: first.Model, Data: make([]Embedding, 0, texts)}
	for i, a := range answers {
		if n, want := len(a.Data[0].Embedding), len(first.Data[0].Embedding); n != want {
			return nil, i, errorf("its vectors have %d dimensions, the first part's %d", n, want)
		}
		for _, e := range a.Data {
			e.Index += parts[i].first
			out.Data = append(out.Data, e)
		}
		out.Usage = out.Usage.Add(a.Usage)
	}
	return out, -1, nil
}

// EmbeddingPartError is CreateMany's error when one of its parts fails: the part, the texts it
// carried, req.Input[First:First+Count], and its error, an *APIError, a *TransportError, a
// *DecodeError or ctx's error, which Unwrap returns.
type EmbeddingPartError struct {
	Part  int   // the part's number, from 0, in the order of the texts
	First int   // the position in req.Input of the part's first text
	Count int   // how many texts the part carried
	Err   error // why the part failed
}

// Error names the part, its texts and its error.
func (e *EmbeddingPartError) Error() string {
	return sprintf("infergate: embeddings part %d (Input[%d:%d]): %v", e.Part, e.First, e.First+e.Count, e.Err)
}

// Unwrap returns the part's error.
func (e *EmbeddingPartError) Unwrap() error { return e.Err }

// embeddingPart is a run of consecutive texts CreateMany sends as one request.
type embeddingPart struct{ first, count int }

// embeddingQuota is the quota of model's group, which bounds a part's tokens, and the group's name:
// the client's limiter's when it is NewLimiter's, else the deployed gateway's.
func (c *config) embeddingQuota(model string) (Quota, string) {
	q := GatewayQuotas()
	if l, ok := c.limiter.(*localLimiter); ok {
		q = l.quotas
	}
	if g, ok := q.Group(model); ok && model != "" { // no model is the default group's, as the limiter has it
		return g.Quota, g.Name
	}
	return q.Default, "Default"
}

// splitEmbeddings cuts texts into parts of at most MaxEmbeddingInputs texts whose admission
// estimate is at most maxTokens (0 means no bound), each filled before the next starts. tooLarge is
// the index of a text whose estimate alone exceeds maxTokens, and parts nil then; else -1.
func splitEmbeddings(texts []string, maxTokens int) (parts []embeddingPart, tooLarge int) {
	fits := func(chars int) bool { return maxTokens == 0 || quota.Estimate(chars) <= maxTokens }
	chars := 0 // the part's counted characters so far, quota.EmbeddingsInput of its texts
	for i, text := range texts {
		n := quota.StringContent(text)
		if !fits(n) {
			return nil, i
		}
		if k := len(parts) - 1; k >= 0 && parts[k].count < MaxEmbeddingInputs && fits(chars+1+n) {
			parts[k].count++
			chars += 1 + n
			continue
		}
		parts = append(parts, embeddingPart{first: i, count: 1})
		chars = n
	}
	return parts, -1
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
