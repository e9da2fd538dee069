package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// manyTexts returns n distinct texts, "text 0" to "text n-1".
func manyTexts(n int) []string {
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("text %d", i)
	}
	return texts
}

// partSizes is the number of texts of each embeddings request the fake saw, sorted.
func partSizes(t *testing.T, gw *gatewaytest.Server) []int {
	t.Helper()
	var sizes []int
	for _, r := range gw.Requests() {
		input, _ := r.JSON["input"].([]any)
		sizes = append(sizes, len(input))
	}
	slices.Sort(sizes)
	return sizes
}

// checkVectors fails unless resp holds, in order, the fake's vector of each text with its index,
// and the usage the fake bills for them (a token a word).
func checkVectors(t *testing.T, texts []string, resp *infergate.EmbeddingResponse) {
	t.Helper()
	if len(resp.Data) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(resp.Data), len(texts))
	}
	words := 0
	for i, e := range resp.Data {
		want := gatewaytest.Embed(texts[i], gatewaytest.DefaultEmbeddingDimensions)
		if e.Index != i || !slices.EqualFunc(e.Embedding, want, func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }) {
			t.Fatalf("Data[%d] has Index %d and not the vector of %q", i, e.Index, texts[i])
		}
		words += len(strings.Fields(texts[i]))
	}
	if want := (infergate.Usage{PromptTokens: words, TotalTokens: words}); resp.Usage != want {
		t.Errorf("Usage = %+v, want the parts' sum %+v", resp.Usage, want)
	}
	if resp.Model != gatewaytest.DefaultEmbeddingModel || resp.Object != "list" {
		t.Errorf("Model, Object = %q, %q", resp.Model, resp.Object)
	}
}

// TestCreateManyKeepsOrderAcrossParts: whatever the number of texts and the client's bound, every
// vector is its text's, at its position, and the usage is the parts' sum.
func TestCreateManyKeepsOrderAcrossParts(t *testing.T) {
	t.Parallel()
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(uint64(seed), 7))
	for range 8 {
		texts := make([]string, 1+r.IntN(4*infergate.MaxEmbeddingInputs))
		for i := range texts {
			texts[i] = fmt.Sprintf("%x", r.Uint64()>>r.IntN(64))
		}
		var opts []infergate.Option
		if bound := r.IntN(6); bound > 0 {
			opts = append(opts, infergate.WithMaxConcurrency(bound))
		}
		var mu sync.Mutex
		var sizes []int
		client := embedServer(t, func(_ http.ResponseWriter, _ *http.Request, texts []string) bool {
			mu.Lock()
			sizes = append(sizes, len(texts))
			mu.Unlock()
			return false
		}, opts...)
		resp, err := client.Embeddings.CreateMany(t.Context(), infergate.EmbeddingRequest{Input: texts})
		if err != nil {
			t.Fatalf("%d texts: %v", len(texts), err)
		}
		if len(resp.Data) != len(texts) {
			t.Fatalf("%d vectors for %d texts", len(resp.Data), len(texts))
		}
		for i, e := range resp.Data {
			if e.Index != i || !slices.Equal(e.Embedding, vectorOf(texts[i])) {
				t.Fatalf("%d texts: Data[%d] has Index %d and not the vector of %q", len(texts), i, e.Index, texts[i])
			}
		}
		if want := (infergate.Usage{PromptTokens: len(texts), TotalTokens: len(texts)}); resp.Usage != want || resp.Model != "m" {
			t.Errorf("Usage, Model = %+v, %q; want the parts' sum %+v and m", resp.Usage, resp.Model, want)
		}
		slices.Sort(sizes)
		want := make([]int, len(texts)/infergate.MaxEmbeddingInputs)
		for i := range want {
			want[i] = infergate.MaxEmbeddingInputs
		}
		if rest := len(texts) % infergate.MaxEmbeddingInputs; rest > 0 {
			want = append([]int{rest}, want...)
		}
		if !slices.Equal(sizes, want) {
			t.Errorf("%d texts sent in parts of %v, want %v", len(texts), sizes, want)
		}
	}
}

func TestCreateManyPartsAtTheBoundaries(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		texts int
		parts []int
	}{
		{1, []int{1}},
		{2048, []int{2048}},
		{2049, []int{1, 2048}},
		{5000, []int{904, 2048, 2048}},
	} {
		t.Run(fmt.Sprint(tt.texts), func(t *testing.T) {
			t.Parallel()
			gw := gatewaytest.New(t)
			texts := manyTexts(tt.texts)
			resp, err := gw.Client().Embeddings.CreateMany(t.Context(), infergate.EmbeddingRequest{Input: texts})
			if err != nil {
				t.Fatal(err)
			}
			checkVectors(t, texts, resp)
			if got := partSizes(t, gw); !slices.Equal(got, tt.parts) {
				t.Errorf("parts of %v texts, want %v", got, tt.parts)
			}
		})
	}
}

// TestCreateManyRefusesBeforeSending: what Create would refuse, but for the count of texts, is
// refused before any part is sent.
func TestCreateManyRefusesBeforeSending(t *testing.T) {
	t.Parallel()
	blank := manyTexts(5000)
	blank[4999] = " \n"
	huge := manyTexts(3)
	huge[1] = strings.Repeat("x", 400_004) // 100,001 tokens: more than the default group's window
	for _, tt := range []struct {
		name  string
		req   infergate.EmbeddingRequest
		field string
	}{
		{"no text", infergate.EmbeddingRequest{}, "Input"},
		{"a blank text in the last part", infergate.EmbeddingRequest{Input: blank}, "Input[4999]"},
		{"a bad format", infergate.EmbeddingRequest{Input: manyTexts(3000), EncodingFormat: "hex"}, "EncodingFormat"},
		{"an extra field the request sends", infergate.EmbeddingRequest{Input: manyTexts(3000), Extra: map[string]any{"input": "x"}}, "Extra"},
		{"a text beyond the group's token quota", infergate.EmbeddingRequest{Input: huge}, "Input[1]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gw := gatewaytest.New(t)
			_, err := gw.Client().Embeddings.CreateMany(t.Context(), tt.req)
			var invalid *infergate.ValidationError
			if !errors.As(err, &invalid) || !strings.HasPrefix(invalid.Field, tt.field) {
				t.Fatalf("err = %v, want a *ValidationError on %s", err, tt.field)
			}
			if n := len(gw.Requests()); n != 0 {
				t.Errorf("%d requests sent", n)
			}
		})
	}
}

// TestCreateManyBoundsPartsByTheTokenQuota: with the deployed gateway's quotas, a model of the
// default group admits 100,000 estimated tokens a request, so texts of 37,500 tokens go two by
// two; a limiter's own quotas replace them.
func TestCreateManyBoundsPartsByTheTokenQuota(t *testing.T) {
	t.Parallel()
	texts := make([]string, 5)
	for i := range texts {
		texts[i] = strings.Repeat(fmt.Sprint(i), 150_000)
	}
	gw := gatewaytest.New(t, gatewaytest.WithAnyModel())
	resp, err := gw.Client().Embeddings.CreateMany(t.Context(), infergate.EmbeddingRequest{Model: "some-embedder", Input: texts})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Data) != len(texts) {
		t.Fatalf("%d vectors", len(resp.Data))
	}
	if got := partSizes(t, gw); !slices.Equal(got, []int{1, 2, 2}) {
		t.Errorf("parts of %v texts, want [1 2 2]", got)
	}

	limited := gw.Client(infergate.WithLimiter(infergate.NewLimiter(infergate.Quotas{Default: infergate.Quota{Tokens: 10}})))
	_, err = limited.Embeddings.CreateMany(t.Context(), infergate.EmbeddingRequest{Input: []string{"short", strings.Repeat("y", 44)}})
	var invalid *infergate.ValidationError
	if !errors.As(err, &invalid) || invalid.Field != "Input[1]" || !strings.Contains(invalid.Reason, "11 tokens, exceeds the 10") {
		t.Fatalf("err = %v, want Input[1] refused by the limiter's quota", err)
	}
}

// vectorOf is embedServer's vector for text, which tells texts apart: its checksum and length.
func vectorOf(text string) []float32 {
	return []float32{float32(crc32.ChecksumIEEE([]byte(text)) >> 8), float32(len(text))}
}

// embedHandler is a gateway whose embeddings route answers each text with vectorOf it, after
// handle has seen the request's texts; handle may write an answer of its own and return true.
func embedHandler(handle func(w http.ResponseWriter, r *http.Request, texts []string) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if handle(w, r, req.Input) {
			return
		}
		data := make([]map[string]any, len(req.Input))
		for i, text := range req.Input {
			data[i] = map[string]any{"index": i, "embedding": vectorOf(text)}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": "m", "data": data,
			"usage": map[string]int{"prompt_tokens": len(req.Input), "total_tokens": len(req.Input)}})
	})
}

// embedServer is a client of embedHandler(handle) on loopback.
func embedServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, texts []string) bool, opts ...infergate.Option) *infergate.Client {
	t.Helper()
	srv := httptest.NewServer(embedHandler(handle))
	t.Cleanup(srv.Close)
	return testClient(t, srv.URL, append([]infergate.Option{infergate.WithHTTPClient(srv.Client())}, opts...)...)
}

// embedInProcess is a client of embedHandler(handle) in this process, for a testing/synctest
// bubble, where a request that is never cancelled while the server waits for it to end is a
// deadlock the test reports.
func embedInProcess(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, texts []string) bool, opts ...infergate.Option) *infergate.Client {
	t.Helper()
	return testClient(t, "https://gw.test", append([]infergate.Option{
		infergate.WithHTTPClient(infergate.InProcessClient(embedHandler(handle)))}, opts...)...)
}

// TestCreateManyFailingPartCancelsTheOthers: when a part fails, the parts in flight are aborted
// (the server sees their requests end), no other part is sent, and the error names the failed part
// and wraps its *APIError.
func TestCreateManyFailingPartCancelsTheOthers(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const inFlight = 4 // as many as CreateMany sends at once
		var (
			mu      sync.Mutex
			sent    []string
			aborted []string
		)
		client := embedInProcess(t, func(w http.ResponseWriter, r *http.Request, texts []string) bool {
			mu.Lock()
			sent = append(sent, texts[0])
			mu.Unlock()
			if texts[0] == "text 4096" {
				synctest.Wait() // the others are in flight
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":{"message":"no such model","type":"invalid_request_error"}}`))
				return true
			}
			<-r.Context().Done()
			mu.Lock()
			aborted = append(aborted, texts[0])
			mu.Unlock()
			return true
		})
		start := time.Now()
		_, err := client.Embeddings.CreateMany(t.Context(), infergate.EmbeddingRequest{Input: manyTexts(5*infergate.MaxEmbeddingInputs + 5)})
		// In the bubble, time passes only when everything waits: parts left running would end at
		// their WithTimeout, later.
		if waited := time.Since(start); waited != 0 {
			t.Errorf("the parts in flight ended %v later, not cancelled", waited)
		}
		var part *infergate.EmbeddingPartError
		var apiErr *infergate.APIError
		if !errors.As(err, &part) || !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest {
			t.Fatalf("err = %v, want an *EmbeddingPartError wrapping the 400", err)
		}
		if *part != (infergate.EmbeddingPartError{Part: 2, First: 4096, Count: 2048, Err: part.Err}) {
			t.Errorf("part error = %+v, want part 2, texts 4096 to 6143", *part)
		}
		if !strings.Contains(err.Error(), "part 2 (Input[4096:6144])") || !strings.Contains(err.Error(), "no such model") {
			t.Errorf("message %q names neither the part nor its error", err)
		}
		synctest.Wait() // the handlers have seen their requests end
		slices.Sort(sent)
		slices.Sort(aborted)
		if want := []string{"text 0", "text 2048", "text 4096", "text 6144"}; !slices.Equal(sent, want) {
			t.Errorf("parts sent: %v, want the first %d only", sent, inFlight)
		}
		if want := []string{"text 0", "text 2048", "text 6144"}; !slices.Equal(aborted, want) {
			t.Errorf("requests aborted: %v, want %v", aborted, want)
		}
	})
}

// TestCreateManyStaysWithinTheClientsBound: the server never has more parts at once than the
// client's WithMaxConcurrency, nor than CreateMany's own four, and has that many when there are
// enough parts.
func TestCreateManyStaysWithinTheClientsBound(t *testing.T) {
	t.Parallel()
	const parts = 6
	for _, tt := range []struct{ clientBound, want int }{{1, 1}, {2, 2}, {0, 4}, {10, 4}} {
		t.Run(fmt.Sprint(tt.clientBound), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				var (
					mu             sync.Mutex
					inFlight, most int
					gate           = make(chan struct{})
				)
				var opts []infergate.Option
				if tt.clientBound > 0 {
					opts = append(opts, infergate.WithMaxConcurrency(tt.clientBound))
				}
				client := embedInProcess(t, func(_ http.ResponseWriter, r *http.Request, _ []string) bool {
					mu.Lock()
					inFlight++
					most = max(most, inFlight)
					wait := gate
					mu.Unlock()
					<-wait
					mu.Lock()
					inFlight--
					mu.Unlock()
					return false
				}, opts...)
				texts := manyTexts(parts * infergate.MaxEmbeddingInputs)
				done := make(chan error, 1)
				go func() {
					resp, err := client.Embeddings.CreateMany(t.Context(), infergate.EmbeddingRequest{Input: texts})
					if err == nil && (len(resp.Data) != len(texts) || resp.Usage.TotalTokens != len(texts)) {
						err = fmt.Errorf("%d vectors, %d tokens", len(resp.Data), resp.Usage.TotalTokens)
					}
					done <- err
				}()
				// Hold the requests until no other can come (everything in the bubble waits), so
				// that all the client sends at once are at the server at once; then answer them.
				for {
					synctest.Wait()
					select {
					case err := <-done:
						if err != nil {
							t.Fatal(err)
						}
						if most != tt.want {
							t.Errorf("%d parts at once at the server, want %d", most, tt.want)
						}
						return
					default:
					}
					mu.Lock()
					close(gate)
					gate = make(chan struct{})
					mu.Unlock()
				}
			})
		})
	}
}

func TestCreateManyEndsWithItsContext(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var sent, aborted atomic.Int32
		client := embedInProcess(t, func(_ http.ResponseWriter, r *http.Request, _ []string) bool {
			sent.Add(1)
			<-r.Context().Done()
			aborted.Add(1)
			return true
		})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			_, err := client.Embeddings.CreateMany(ctx, infergate.EmbeddingRequest{Input: manyTexts(2*infergate.MaxEmbeddingInputs + 1)})
			done <- err
		}()
		synctest.Wait() // the three parts are in flight
		cancel()
		err := <-done
		var part *infergate.EmbeddingPartError
		if !errors.Is(err, context.Canceled) || !errors.As(err, &part) {
			t.Fatalf("err = %v, want an *EmbeddingPartError matching context.Canceled", err)
		}
		synctest.Wait()
		if sent.Load() != 3 || aborted.Load() != 3 {
			t.Errorf("%d parts sent, %d aborted; want 3 and 3", sent.Load(), aborted.Load())
		}

		_, err = client.Embeddings.CreateMany(ctx, infergate.EmbeddingRequest{Input: manyTexts(3)})
		if !errors.Is(err, context.Canceled) || sent.Load() != 3 {
			t.Fatalf("on an ended context: err = %v, %d requests sent", err, sent.Load()-3)
		}
	})
}

// TestCreateManyResponseInfo: the info describes the part answered last, or the part that failed.
func TestCreateManyResponseInfo(t *testing.T) {
	t.Parallel()
	failing := ""
	client := embedServer(t, func(w http.ResponseWriter, _ *http.Request, texts []string) bool {
		w.Header().Set("X-Request-Id", "req-"+texts[0])
		if texts[0] == failing {
			w.WriteHeader(http.StatusInternalServerError)
			return true
		}
		return false
	}, infergate.WithMaxConcurrency(1)) // one part at a time: the last answered is the last part
	var info, second infergate.ResponseInfo
	req := infergate.EmbeddingRequest{Input: manyTexts(2*infergate.MaxEmbeddingInputs + 1)}
	if _, err := client.Embeddings.CreateMany(t.Context(), req, infergate.WithResponseInfo(&info), infergate.WithResponseInfo(&second)); err != nil {
		t.Fatal(err)
	}
	if info.StatusCode != 200 || info.RequestID != "req-text 4096" || second.RequestID != info.RequestID {
		t.Errorf("info = %d %q, second %q; want the last part's", info.StatusCode, info.RequestID, second.RequestID)
	}
	failing = "text 2048"
	_, err := client.Embeddings.CreateMany(t.Context(), req, infergate.WithResponseInfo(&info))
	if err == nil || info.StatusCode != 500 || info.RequestID != "req-text 2048" {
		t.Errorf("err = %v, info = %d %q; want the failed part's", err, info.StatusCode, info.RequestID)
	}
}

// TestCreateManyRefusesVectorsOfTwoLengths: parts answered with vectors of different lengths
// (different models) fail the call rather than mixing them.
func TestCreateManyRefusesVectorsOfTwoLengths(t *testing.T) {
	t.Parallel()
	client := embedServer(t, func(w http.ResponseWriter, _ *http.Request, texts []string) bool {
		if texts[0] != "text 2048" {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":[{"index":0,"embedding":[1,2,3]}]}`))
		return true
	})
	_, err := client.Embeddings.CreateMany(t.Context(), infergate.EmbeddingRequest{Input: manyTexts(infergate.MaxEmbeddingInputs + 1)})
	var part *infergate.EmbeddingPartError
	if !errors.As(err, &part) || part.Part != 1 || !strings.Contains(err.Error(), "3 dimensions, the first part's 2") {
		t.Fatalf("err = %v, want part 1 refused for its vectors' length", err)
	}
}
