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

	"github.com/infergate/infergate-go/internal/quota"
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

// Embed returns the fake's vector for text. Each word, lower-cased, is hashed
// to one of dims dimensions and adds ±1 there; the sum, scaled to unit length,
// is then turned by a fixed rotation of the space, which spreads it over every
// dimension as a real model's vector is spread and keeps every angle between
// vectors. The same text always gets the same vector, and texts that share
// words point in similar directions (texts with no hashed word in common are
// orthogonal), so ranking by cosine similarity behaves sensibly in tests and
// examples.
func Embed(text string, dims int) []float32 {
	words := make([]float64, dims)
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
		words[sum%uint64(dims)] += sign
	}
	var norm float64
	for _, x := range words {
		norm += x * x
	}
	out := make([]float32, dims)
	if norm == 0 {
		return out
	}
	return rotate(out, words, math.Sqrt(norm))
}

// rotate writes to out the vector v/norm turned by an orthogonal matrix fixed
// for its length n: the orthonormal DCT-II basis with its columns and its rows
// shuffled and the sign of each row flipped or not, all by a fixed
// pseudo-random draw. A dimension of v becomes a cosine wave of a frequency of
// its own, spread over all n dimensions, its shape hidden by the shuffle and
// the signs. It costs n cosines a word.
func rotate(out []float32, v []float64, norm float64) []float32 {
	n := len(v)
	seed := uint64(n)
	frequency, position := shuffled(n, &seed), shuffled(n, &seed)
	rotated := make([]float64, n)
	for j, x := range v {
		if x == 0 {
			continue
		}
		k := float64(frequency[j])
		scale := x / norm * math.Sqrt(2/float64(n))
		if k == 0 {
			scale /= math.Sqrt2
		}
		for i := range rotated {
			rotated[i] += scale * math.Cos(math.Pi*(float64(i)+0.5)*k/float64(n))
		}
	}
	for i, x := range rotated {
		if seed = splitMix(seed); seed&1 != 0 {
			x = -x
		}
		out[position[i]] = float32(x)
	}
	return out
}

// shuffled returns 0 to n-1 in an order drawn from seed, which it advances.
func shuffled(n int, seed *uint64) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		*seed = splitMix(*seed)
		j := int(*seed % uint64(i+1))
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// splitMix is a step of the SplitMix64 generator: the fake's fixed draws, the
// same on every platform and Go release.
func splitMix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
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
	limit, admitted := s.admitRequest(w, r, req.Model, quota.EmbeddingsEstimate, (*limitState).refuseEmbeddings)
	if !admitted {
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
	s.recordUsage(limit, model, &Usage{PromptTokens: tokens}).setHeaders(w.Header())
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
