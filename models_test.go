package infergate

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"

	"github.com/infergate/infergate-go/internal/modelfacts"
)

const (
	catalogAPIRoot = "https://gw.test/api/v1"
	catalogAPIKey  = "sk-test-key"
	catalogJWT     = "eyJ.test.jwt"
	llamaHex       = "0x1111111111111111111111111111111111111111111111111111111111111111"
	glmWebHex      = "0x2222222222222222222222222222222222222222222222222222222222222222"
)

// catalogCall is what the tests check about a request that reached the mock: its route (method and
// full URL, query included), credential and body.
type catalogCall struct {
	Method, URL, Authorization, ContentType, Body string
}

// catalogMock is one httpmock transport that answers only the routes a test registers and records
// every request that reached one of them.
type catalogMock struct {
	t     *testing.T
	mock  *httpmock.MockTransport
	mu    sync.Mutex
	calls []catalogCall
}

func newCatalogMock(t *testing.T) *catalogMock {
	return &catalogMock{t: t, mock: httpmock.NewMockTransport()}
}

// on answers method and route (below the API root, query included; the query must match exactly).
func (m *catalogMock) on(method, route string, status int, body string) {
	m.mock.RegisterResponder(method, catalogAPIRoot+route, func(req *http.Request) (*http.Response, error) {
		var sent []byte
		if req.Body != nil {
			sent, _ = io.ReadAll(req.Body)
		}
		m.mu.Lock()
		m.calls = append(m.calls, catalogCall{Method: req.Method, URL: req.URL.String(),
			Authorization: req.Header.Get("Authorization"), ContentType: req.Header.Get("Content-Type"), Body: string(sent)})
		m.mu.Unlock()
		return httpmock.NewStringResponse(status, body), nil
	})
}

// client returns a client on the mock with an API key and without retries.
func (m *catalogMock) client(opts ...Option) *Client {
	m.t.Helper()
	return mockClient(m.t, m.mock, opts...)
}

// expect fails the test unless exactly these requests were made, in this order.
func (m *catalogMock) expect(want ...catalogCall) {
	m.t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if diff := cmp.Diff(want, m.calls); diff != "" {
		m.t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// get is the request a JSON GET with the API key makes.
func get(route string) catalogCall {
	return catalogCall{Method: http.MethodGet, URL: catalogAPIRoot + route, Authorization: "Bearer " + catalogAPIKey}
}

// modelsGet is the request the catalogue makes: the contract asks for a JSON Content-Type on it.
func modelsGet(route string) catalogCall {
	c := get(route)
	c.ContentType = "application/json"
	return c
}

// catalogEnvelopes are the error bodies the gateway sends, one of each envelope.
var catalogEnvelopes = []struct {
	name     string
	status   int
	body     string
	want     APIError // StatusCode, Type, Code and Message are checked
	sentinel error
}{
	{name: "detail text", status: 401, body: `{"detail":"Invalid API key"}`,
		want: APIError{StatusCode: 401, Message: "Invalid API key"}, sentinel: ErrUnauthorized},
	{name: "detail list 422", status: 422,
		body: `{"detail":[{"type":"missing","loc":["body","title"],"msg":"Field required","input":{}}]}`,
		want: APIError{StatusCode: 422, Message: "body.title: Field required"}},
	{name: "error object", status: 429,
		body:     `{"error":{"message":"Too many requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
		want:     APIError{StatusCode: 429, Type: "requests", Code: "rate_limit_exceeded", Message: "Too many requests"},
		sentinel: ErrRateLimited},
	{name: "error text with 200", status: 200, body: `{"error":"backend unavailable"}`,
		want: APIError{StatusCode: 200, Message: "backend unavailable"}},
}

// checkEnvelopes runs every call against every error envelope and checks the *APIError it returns.
// Each call gets a fresh client whose every route answers with the envelope.
func checkEnvelopes(t *testing.T, calls map[string]func(context.Context, *Client) error) {
	for name, call := range calls {
		for _, env := range catalogEnvelopes {
			t.Run(name+"/"+env.name, func(t *testing.T) {
				m := newCatalogMock(t)
				m.mock.RegisterNoResponder(httpmock.NewStringResponder(env.status, env.body))
				err := call(t.Context(), m.client(WithAccessToken(catalogJWT)))
				var apiErr *APIError
				if !errors.As(err, &apiErr) {
					t.Fatalf("error %v (%T) is not an *APIError", err, err)
				}
				got := APIError{StatusCode: apiErr.StatusCode, Type: apiErr.Type, Code: apiErr.Code, Message: apiErr.Message}
				if diff := cmp.Diff(env.want, got); diff != "" {
					t.Errorf("APIError (-want +got):\n%s", diff)
				}
				if env.sentinel != nil && !errors.Is(err, env.sentinel) {
					t.Errorf("errors.Is(%v, %v) = false", err, env.sentinel)
				}
			})
		}
	}
}

const deployedCatalogue = `{"object":"list","data":[
	{"id":"llama-3.3-70b","blockchainID":"` + llamaHex + `","created":1736000000,"tags":["chat","fast"],"modelType":"LLM"},
	{"id":"glm-5.1:web","blockchainID":"` + glmWebHex + `","created":1737000000,"tags":[],"modelType":"LLM"},
	{"id":"whisper-1","blockchainID":"0x33","created":1738000000,"modelType":"STT"}]}`

// deployedModels are deployedCatalogue's models with the facts the built-in table knows.
var deployedModels = []Model{
	{ID: "llama-3.3-70b", BlockchainID: llamaHex, Created: 1736000000, Tags: []string{"chat", "fast"}, Type: ModelTypeLLM,
		ContextLength: 128000, Capabilities: []Capability{CapabilityTools}, Prices: pricesUSD("0.70", "2.50"),
		Sources: FactSources{modelfacts.ModelsPage, modelfacts.ModelsPage, modelfacts.PriceFile}},
	{ID: "glm-5.1:web", BlockchainID: glmWebHex, Created: 1737000000, Tags: []string{}, Type: ModelTypeLLM,
		ContextLength: 200000, Capabilities: []Capability{CapabilityTools, CapabilityReasoning, CapabilityWebSearch},
		Prices: pricesUSD("1.50", "5.00"), Sources: FactSources{modelfacts.ModelsPage, modelfacts.ModelsPage, modelfacts.PriceFile}},
	{ID: "whisper-1", BlockchainID: "0x33", Created: 1738000000, Type: ModelTypeSTT,
		Capabilities: []Capability{CapabilityTranscription}, Sources: FactSources{Capabilities: FactsFromServer}},
}

func TestModelsList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		routes    map[string]string // route → body; a route not listed answers 404
		want      []Model
		wantCalls []catalogCall
	}{
		{
			name:      "contract route, deployed shape",
			routes:    map[string]string{"/chat/models": deployedCatalogue},
			want:      deployedModels,
			wantCalls: []catalogCall{modelsGet("/chat/models")},
		},
		{
			name:      "falls back to the deployed route on 404",
			routes:    map[string]string{"/models": deployedCatalogue},
			want:      deployedModels,
			wantCalls: []catalogCall{modelsGet("/chat/models"), modelsGet("/models")},
		},
		{
			name: "OpenAI-shaped items",
			routes: map[string]string{"/chat/models": `{"object":"list","data":[
				{"id":"gpt-x","object":"model","created":1700000000,"owned_by":"acme","extra":{"a":1}}]}`},
			want:      []Model{{ID: "gpt-x", Created: 1700000000, OwnedBy: "acme"}},
			wantCalls: []catalogCall{modelsGet("/chat/models")},
		},
		{
			name:   "bare array",
			routes: map[string]string{"/chat/models": `[{"id":"zz","modelType":"EMBEDDING"},{"id":"yy","modelType":"SOMETHING_NEW"}]`},
			want: []Model{{ID: "zz", Type: ModelTypeEmbedding, Capabilities: []Capability{CapabilityEmbeddings},
				Sources: FactSources{Capabilities: FactsFromServer}}, {ID: "yy", Type: "SOMETHING_NEW"}},
			wantCalls: []catalogCall{modelsGet("/chat/models")},
		},
		{
			name:      "empty list",
			routes:    map[string]string{"/chat/models": `{"object":"list","data":[]}`},
			want:      []Model{},
			wantCalls: []catalogCall{modelsGet("/chat/models")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newCatalogMock(t)
			m.on(http.MethodGet, "/chat/models", 404, `{"detail":"Not Found"}`)
			for route, body := range tt.routes {
				m.on(http.MethodGet, route, 200, body)
			}
			got, err := m.client().Models.List(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("models (-want +got):\n%s", diff)
			}
			m.expect(tt.wantCalls...)
		})
	}
}

func TestModelsListRemembersDeployedRoute(t *testing.T) {
	t.Parallel()
	m := newCatalogMock(t)
	m.on(http.MethodGet, "/chat/models", 404, `{"detail":"Not Found"}`)
	m.on(http.MethodGet, "/models", 200, deployedCatalogue)
	client := m.client()
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := client.Models.List(t.Context()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	m.mock.ZeroCallCounters()
	for range 3 {
		if _, err := client.Models.List(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]int{"GET " + catalogAPIRoot + "/models": 3, "GET " + catalogAPIRoot + "/chat/models": 0}
	if diff := cmp.Diff(want, m.mock.GetCallCountInfo()); diff != "" {
		t.Errorf("calls after the route was learnt (-want +got):\n%s", diff)
	}
}

func TestModelsListBothRoutesMissing(t *testing.T) {
	t.Parallel()
	m := newCatalogMock(t)
	m.on(http.MethodGet, "/chat/models", 404, `{"detail":"Not Found"}`)
	m.on(http.MethodGet, "/models", 404, `{"detail":"Not Found"}`)
	client := m.client()
	_, err := client.Models.List(t.Context())
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	if _, err := client.Models.List(t.Context()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second call: err = %v, want ErrNotFound", err)
	}
	// Nothing was learnt, so the second call tries the contract's route again.
	m.expect(modelsGet("/chat/models"), modelsGet("/models"), modelsGet("/chat/models"), modelsGet("/models"))
}

func TestModelsGet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, query string
		want        *Model
		wantErr     error
	}{
		{name: "exact name", query: "llama-3.3-70b", want: &deployedModels[0]},
		{name: "name in other case", query: "LLaMA-3.3-70B", want: &deployedModels[0]},
		{name: "web variant is its own model", query: "GLM-5.1:WEB", want: &deployedModels[1]},
		{name: "hex id", query: glmWebHex, want: &deployedModels[1]},
		{name: "unknown name", query: "nope", wantErr: ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newCatalogMock(t)
			m.on(http.MethodGet, "/chat/models", 200, deployedCatalogue)
			got, err := m.client().Models.Get(t.Context(), tt.query)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("model (-want +got):\n%s", diff)
			}
		})
	}
}

func TestModelsValidation(t *testing.T) {
	t.Parallel()
	m := newCatalogMock(t)
	_, err := m.client().Models.Get(t.Context(), "  ")
	var verr *ValidationError
	if !errors.As(err, &verr) || verr.Field != "Model" {
		t.Fatalf("err = %v, want a ValidationError on Model", err)
	}
	m.expect()
}

func TestModelsErrorEnvelopes(t *testing.T) {
	t.Parallel()
	checkEnvelopes(t, map[string]func(context.Context, *Client) error{
		"List": func(ctx context.Context, c *Client) error { _, err := c.Models.List(ctx); return err },
		"Get":  func(ctx context.Context, c *Client) error { _, err := c.Models.Get(ctx, "x"); return err },
	})
}

func TestIsBlockchainID(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		llamaHex: true, "0xAbC": true, "0X12": true, "0x": false, "0xg1": false, "llama-3.3-70b": false,
		"": false, "12ab": false, "0x12 ": false,
	}
	for id, want := range tests {
		if got := IsBlockchainID(id); got != want {
			t.Errorf("IsBlockchainID(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestWebSearchVariant(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"glm-5.1": "glm-5.1:web", "glm-5.1:web": "glm-5.1:web", "GLM-5.1:WEB": "GLM-5.1:WEB", "": "",
	}
	for name, want := range tests {
		if got := WebSearchVariant(name); got != want {
			t.Errorf("WebSearchVariant(%q) = %q, want %q", name, got, want)
		}
		if got := WebSearchVariant(WebSearchVariant(name)); got != want {
			t.Errorf("WebSearchVariant twice on %q = %q, want %q", name, got, want)
		}
	}
	if !(Model{ID: "glm-5.1:web"}).IsWebSearch() || (Model{ID: "glm-5.1"}).IsWebSearch() {
		t.Error("IsWebSearch does not follow the :web suffix")
	}
}

func BenchmarkModelsList(b *testing.B) {
	mock := httpmock.NewMockTransport()
	mock.RegisterResponder(http.MethodGet, catalogAPIRoot+"/chat/models", httpmock.NewStringResponder(404, `{"detail":"Not Found"}`))
	mock.RegisterResponder(http.MethodGet, catalogAPIRoot+"/models", httpmock.NewStringResponder(200, deployedCatalogue))
	client := mockClient(b, mock)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := client.Models.List(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCatalogCache downloads the catalogue once for Models.Get and Bids.Rated within the TTL, always
// for Models.List, and every time with a TTL of zero.
func TestCatalogCache(t *testing.T) {
	t.Parallel()
	m := newCatalogMock(t)
	m.on(http.MethodGet, "/chat/models", 200, deployedCatalogue)
	m.on(http.MethodGet, "/models/ratedbids?model_id="+llamaHex, 200, `[]`)
	c := m.client()
	ctx := context.Background()
	for range 2 {
		if _, err := c.Models.Get(ctx, "llama-3.3-70b"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Bids.Rated(ctx, "llama-3.3-70b"); err != nil {
			t.Fatal(err)
		}
	}
	m.expect(modelsGet("/chat/models"), get("/models/ratedbids?model_id="+llamaHex), get("/models/ratedbids?model_id="+llamaHex))
	m.calls = nil
	if _, err := c.Models.List(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Models.Get(ctx, "llama-3.3-70b", WithCatalogTTL(0)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Models.Get(ctx, "llama-3.3-70b"); err != nil {
		t.Fatal(err)
	}
	m.expect(modelsGet("/chat/models"), modelsGet("/chat/models"))
}

// pricesUSD are prices in USD per million tokens, for the tables of tests.
func pricesUSD(in, out string) *ModelPrices {
	i, err := ParseDecimal(in)
	if err != nil {
		panic(err)
	}
	o, err := ParseDecimal(out)
	if err != nil {
		panic(err)
	}
	return &ModelPrices{Input: Money{i, CurrencyUSD}, Output: Money{o, CurrencyUSD}}
}

// FuzzCatalogDecode holds the catalogue's one-pass decoder to encoding/json's, facts included:
// whatever the first accepts, the second reads to the same models; neither panics, and nor does
// completing a model's facts.
func FuzzCatalogDecode(f *testing.F) {
	f.Add(deployedCatalogue)
	f.Add(`{"object":"list","data":[{"id":"glm-5.1","context_length":202752,"input_price_per_million":1.5,"output_price_per_million":"5.00","capabilities":["tools"],"tee":true,"tags":["TEE"]}]}`)
	f.Add(`[{"id":"m","max_model_len":131072,"context_window":9,"input_price_per_million":"0.1","output_price_per_million":2.5e-1,"tee":false,"capabilities":[]}]`)
	f.Add(`[{"id":"x:web","context_length":"1","input_price_per_million":null,"prices":{"input":{"amount":"1","currency":"USD"}},"sources":{"prices":"me"}}]`)
	f.Fuzz(func(t *testing.T, body string) {
		var fast catalogList
		accepted, envelope := fast.decodeFast([]byte(body))
		if accepted && !envelope {
			noErrorIn200(t, []byte(body))
		}
		var slow catalogList
		err := slow.UnmarshalJSON([]byte(body))
		for _, m := range append(fast.items, slow.items...) {
			(&config{}).withFacts(m)
		}
		if !accepted {
			return
		}
		if err != nil {
			t.Fatalf("%q: the one-pass decoder accepts it, encoding/json refuses it: %v", body, err)
		}
		if diff := cmp.Diff(slow.items, fast.items); diff != "" {
			t.Fatalf("%q: models (-encoding/json +one-pass):\n%s", body, diff)
		}
	})
}
