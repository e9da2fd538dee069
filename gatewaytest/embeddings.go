package gatewaytest

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"unicode"
)

// DefaultEmbeddingDimensions is the length of the fake's vectors when a
// request does not set dimensions.
const DefaultEmbeddingDimensions = 64

// DefaultEmbeddingModel is the embedding model of the default catalogue, and
// the deployed gateway's default: the embeddings route's answer when a request
// names no model, or one it routes to the default (see WithModels).
const DefaultEmbeddingModel = "text-embedding-bge-m3"

// maxEmbeddingInputs is OpenAI's limit on texts per request, which the
// gateway's providers enforce.
const maxEmbeddingInputs = 2048

// Embed returns the fake's vector for text: each word, lower-cased, is hashed
// to one of dims dimensions and adds ±1 there; the sum is scaled to unit
// length. The same text always gets the same vector, and texts that share
// words point in similar directions, so ranking by cosine similarity behaves
// sensibly in tests and examples.
func Embed(text string, dims int) []float32 {
	v := make([]float64, dims)
	for _, word := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		h := fnv.New64a()
		_, _ = h.Write([]byte(word))
		sum := h.Sum64()
		sign := 1.0
		if sum&(1<<63) != 0 {
			sign = -1
		}
		v[sum%uint64(dims)] += sign
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, dims)
	for i, x := range v {
		if norm > 0 {
			out[i] = float32(x / math.Sqrt(norm))
		}
	}
	return out
}

func (s *Server) handleEmbeddings(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input          json.RawMessage `json:"input"`
		Model          string          `json:"model"`
		EncodingFormat *string         `json:"encoding_format"`
		Dimensions     *int            `json:"dimensions"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		validation(w, "json_invalid", []any{"body"}, "JSON decode error", nil)
		return
	}
	texts, ok := embeddingInputs(req.Input)
	if !ok {
		validation(w, "missing", []any{"body", "input"}, "Input should be a valid string or a list of strings", nil)
		return
	}
	format := "float"
	if req.EncodingFormat != nil {
		format = *req.EncodingFormat
	}
	dims := DefaultEmbeddingDimensions
	if req.Dimensions != nil {
		dims = *req.Dimensions
	}
	switch {
	case len(texts) == 0 || len(texts) > maxEmbeddingInputs:
		detail(w, http.StatusBadRequest, "input must hold 1 to 2048 texts")
		return
	case format != "float" && format != "base64":
		detail(w, http.StatusBadRequest, "encoding_format must be float or base64")
		return
	case dims < 1 || dims > 4096:
		detail(w, http.StatusBadRequest, "dimensions must be between 1 and 4096")
		return
	}
	model, ok := s.resolveModel(w, req.Model, embeddingsUse)
	if !ok {
		return
	}
	data := make([]map[string]any, len(texts))
	tokens := 0
	for i, text := range texts {
		vector := Embed(text, dims)
		tokens += len(strings.Fields(text))
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": encodeVector(vector, format)}
	}
	s.bill(r, model, "/v1/embeddings", tokens, 0)
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list", "model": model, "data": data,
		"usage": map[string]any{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}

// embeddingInputs reads input as the gateway does: one string or a list of
// strings.
func embeddingInputs(raw json.RawMessage) ([]string, bool) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, true
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil && many != nil {
		return many, true
	}
	return nil, false
}

// encodeVector writes a vector the way OpenAI does: a list of numbers, or
// base64 of its little-endian float32s.
func encodeVector(v []float32, format string) any {
	if format == "float" {
		return v
	}
	var buf bytes.Buffer
	_ = binary.Write(&buf, binary.LittleEndian, v)
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}
