package infergate

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/quick"

	"github.com/google/go-cmp/cmp"

	"github.com/infergate/infergate-go/internal/quota"
)

func base64Vector(v ...float32) string {
	raw := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(raw)
}

func TestEmbeddingsDecodeWhicheverEncodingArrives(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       [][]float32
		wantErr    string
	}{
		{name: "float arrays", body: `{"object":"list","model":"m","data":[{"object":"embedding","index":0,"embedding":[0.5,-1.25]},{"index":1,"embedding":[3e-3,0]}],"usage":{"prompt_tokens":4,"total_tokens":4}}`,
			want: [][]float32{{0.5, -1.25}, {0.003, 0}}},
		{name: "base64", body: `{"data":[{"index":0,"embedding":"` + base64Vector(0.5, -1.25) + `"},{"index":1,"embedding":"` + base64Vector(0.003, 0) + `"}]}`,
			want: [][]float32{{0.5, -1.25}, {0.003, 0}}},
		{name: "base64 asked, float sent, out of order", body: `{"data":[{"index":1,"embedding":[2]},{"index":0,"embedding":"` + base64Vector(1) + `"}]}`,
			want: [][]float32{{1}, {2}}},
		{name: "a vector missing", body: `{"data":[{"index":0,"embedding":[1]}]}`, wantErr: "1 vectors for 2 inputs"},
		{name: "a vector twice", body: `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`, wantErr: "no vector for input 1"},
		{name: "a stray index", body: `{"data":[{"index":0,"embedding":[1]},{"index":5,"embedding":[1]}]}`, wantErr: "indexes 0,5"},
		{name: "broken base64", body: `{"data":[{"index":0,"embedding":"!!!"},{"index":1,"embedding":[1]}]}`, wantErr: "base64"},
		{name: "base64 of a partial float", body: `{"data":[{"index":0,"embedding":"AAAAAAA="},{"index":1,"embedding":[1]}]}`, wantErr: "not a whole number"},
		{name: "an object for a vector", body: `{"data":[{"index":0,"embedding":{}},{"index":1,"embedding":[1]}]}`, wantErr: "neither a list"},
		{name: "a null vector", body: `{"data":[{"index":0,"embedding":null},{"index":1,"embedding":[1]}]}`, wantErr: "embedding 0: no vector"},
		{name: "an empty list", body: `{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[]}]}`, wantErr: "embedding 1: no vector"},
		{name: "an empty base64 string", body: `{"data":[{"index":0,"embedding":""},{"index":1,"embedding":[1]}]}`, wantErr: "embedding 0: no vector"},
		{name: "no embedding key", body: `{"data":[{"index":0},{"index":1,"embedding":[1]}]}`, wantErr: "embedding 0"},
		{name: "vectors of different lengths", body: `{"data":[{"index":0,"embedding":[1,2,3]},{"index":1,"embedding":"` + base64Vector(1, 2) + `"}]}`,
			wantErr: "vector 1 has 2 dimensions, vector 0 has 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mock, _ := recordAll(t, 200, tt.body, "application/json")
			resp, err := mockClient(t, mock).Embeddings.Create(t.Context(), EmbeddingRequest{Input: []string{"a", "b"}})
			if tt.wantErr != "" {
				var decodeErr *DecodeError
				if !errors.As(err, &decodeErr) || !strings.Contains(decodeErr.Err.Error(), tt.wantErr) || len(decodeErr.Body) == 0 {
					t.Fatalf("err = %v, want a *DecodeError keeping the body and saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got [][]float32
			for i, d := range resp.Data {
				if d.Index != i {
					t.Errorf("Data[%d].Index = %d", i, d.Index)
				}
				got = append(got, d.Embedding)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("vectors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEmbeddingsKeepUsageAndModel(t *testing.T) {
	t.Parallel()
	mock, _ := recordAll(t, 200, `{"object":"list","model":"bge-m3","data":[{"object":"embedding","index":0,"embedding":[1]}],"usage":{"prompt_tokens":3,"total_tokens":3}}`, "")
	resp, err := mockClient(t, mock).Embeddings.Create(t.Context(), EmbeddingRequest{Input: []string{"a b c"}})
	if err != nil {
		t.Fatal(err)
	}
	want := &EmbeddingResponse{Object: "list", Model: "bge-m3", Usage: Usage{PromptTokens: 3, TotalTokens: 3},
		Data: []Embedding{{Object: "embedding", Index: 0, Embedding: []float32{1}}}}
	if diff := cmp.Diff(want, resp); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
}

func TestEmbeddingsInsufficientBalanceAndRateLimit(t *testing.T) {
	t.Parallel()
	for status, sentinel := range map[int]error{402: ErrInsufficientBalance, 429: ErrRateLimited} {
		body := `{"error":{"message":"no","type":"billing","code":"insufficient_balance","available":"0.01","estimated_cost":"0.02"}}`
		if status == 429 {
			body = `{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`
		}
		mock, _ := recordAll(t, status, body, "application/json")
		_, err := mockClient(t, mock).Embeddings.Create(t.Context(), EmbeddingRequest{Input: []string{"x"}})
		if !errors.Is(err, sentinel) {
			t.Errorf("%d: err = %v, want %v", status, err, sentinel)
		}
	}
}

// TestBase64VectorRoundTrip: any vector, encoded the way OpenAI does, decodes to the same bits.
func TestBase64VectorRoundTrip(t *testing.T) {
	t.Parallel()
	roundTrip := func(bits []uint32) bool {
		v := make([]float32, len(bits))
		for i, b := range bits {
			v[i] = math.Float32frombits(b)
		}
		got, err := decodeVector(json.RawMessage(`"` + base64Vector(v...) + `"`))
		if len(v) == 0 {
			return err != nil // an empty vector is no vector
		}
		if err != nil || len(got) != len(v) {
			return false
		}
		for i := range v {
			if math.Float32bits(got[i]) != bits[i] {
				return false
			}
		}
		return true
	}
	if err := quick.Check(roundTrip, &quick.Config{MaxCount: 500}); err != nil {
		t.Error(err)
	}
}

func FuzzEmbeddingVector(f *testing.F) {
	for _, seed := range []string{`[1,2.5,-3e-3]`, `"` + base64Vector(1, 2) + `"`, `"AAA="`, `[1e39]`, `null`, `{}`, `"\u0000"`, `[`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		vector, err := decodeVector(raw)
		if err == nil && len(vector) == 0 {
			t.Errorf("%q decoded to no vector without an error", raw)
		}
	})
}

// embeddingBodies builds the same answer in both encodings: n vectors of dims dimensions, the
// values a model typically gives (small, full float32 precision).
func embeddingBodies(n, dims int) (floatBody, base64Body []byte) {
	rng := rand.New(rand.NewPCG(1, 2))
	var fb, bb strings.Builder
	fb.WriteString(`{"object":"list","model":"m","data":[`)
	bb.WriteString(`{"object":"list","model":"m","data":[`)
	for i := range n {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(rng.NormFloat64() * 0.05)
		}
		if i > 0 {
			fb.WriteByte(',')
			bb.WriteByte(',')
		}
		arr, _ := json.Marshal(v)
		fmt.Fprintf(&fb, `{"object":"embedding","index":%d,"embedding":%s}`, i, arr)
		fmt.Fprintf(&bb, `{"object":"embedding","index":%d,"embedding":"%s"}`, i, base64Vector(v...))
	}
	tail := `],"usage":{"prompt_tokens":100,"total_tokens":100}}`
	fb.WriteString(tail)
	bb.WriteString(tail)
	return []byte(fb.String()), []byte(bb.String())
}

// BenchmarkEmbeddingDecode decodes 16 vectors of 1536 dimensions sent each way; bytes/op is the
// size of the answer on the wire.
func BenchmarkEmbeddingDecode(b *testing.B) {
	floatBody, base64Body := embeddingBodies(16, 1536)
	for _, bc := range []struct {
		name string
		body []byte
	}{{"float", floatBody}, {"base64", base64Body}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.body)))
			b.ReportAllocs()
			for b.Loop() {
				out := embeddingAnswer{inputs: 16}
				if err := json.Unmarshal(bc.body, &out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(bc.body)), "wire-bytes")
		})
	}
}

// TestSplitEmbeddingsProperties: whatever the texts and the token bound, the parts cover the texts
// in order, each within MaxEmbeddingInputs and the bound, each as full as the bounds allow; a text
// beyond the bound alone is reported and nothing split.
func TestSplitEmbeddingsProperties(t *testing.T) {
	t.Parallel()
	estimate := func(texts []string) int { return quota.Estimate(quota.EmbeddingsInput(texts)) }
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		texts := make([]string, r.IntN(3*MaxEmbeddingInputs))
		long := r.IntN(2) == 0
		for i := range texts {
			n := r.IntN(8)
			if long {
				n = r.IntN(400)
			}
			texts[i] = strings.Repeat("é", n) // two bytes, one character
		}
		maxTokens := []int{0, 1, 50, 1000, 100_000}[r.IntN(5)]
		parts, tooLarge := splitEmbeddings(texts, maxTokens)
		if tooLarge >= 0 {
			if parts != nil || maxTokens == 0 || estimate(texts[tooLarge:tooLarge+1]) <= maxTokens ||
				slices.ContainsFunc(texts[:tooLarge], func(s string) bool { return estimate([]string{s}) > maxTokens }) {
				t.Fatalf("bound %d: text %d reported too large, parts %v", maxTokens, tooLarge, parts)
			}
			continue
		}
		next := 0
		for k, p := range parts {
			part := texts[p.first : p.first+p.count]
			if p.first != next || p.count < 1 || p.count > MaxEmbeddingInputs || (maxTokens > 0 && estimate(part) > maxTokens) {
				t.Fatalf("bound %d: part %d is %+v (estimate %d) after text %d", maxTokens, k, p, estimate(part), next)
			}
			if end := p.first + p.count; k < len(parts)-1 && p.count < MaxEmbeddingInputs && (maxTokens == 0 || estimate(texts[p.first:end+1]) <= maxTokens) {
				t.Fatalf("bound %d: part %d (%+v) had room for the next text", maxTokens, k, p)
			}
			next = p.first + p.count
		}
		if next != len(texts) {
			t.Fatalf("the parts end at text %d of %d", next, len(texts))
		}
	}
}
