package infergate_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// Sources of the built-in table, as Model.Sources names them.
const (
	modelsPage  = "table 2026-07-23: api-gateway-docs documentation/models.mdx@adc92e8 (2026-06-10)"
	pricingPage = "table 2026-07-23: api-gateway-docs documentation/models/pricing.mdx@adc92e8 (2026-06-10)"
	priceFile   = "table 2026-07-23: Morpheus-Marketplace-API models/prod_model_price.json@0e2e2cb (2026-06-21)"
)

func usdPrices(t testing.TB, in, out string) *infergate.ModelPrices {
	t.Helper()
	i, err := infergate.ParseDecimal(in)
	if err != nil {
		t.Fatal(err)
	}
	o, err := infergate.ParseDecimal(out)
	if err != nil {
		t.Fatal(err)
	}
	return &infergate.ModelPrices{Input: infergate.Money{Amount: i, Currency: infergate.CurrencyUSD},
		Output: infergate.Money{Amount: o, Currency: infergate.CurrencyUSD}}
}

// facts are the fields of a Model these tests check.
type facts struct {
	ContextLength int
	Capabilities  []infergate.Capability
	Prices        *infergate.ModelPrices
	TEE           bool
	Sources       infergate.FactSources
}

func factsOf(m infergate.Model) facts {
	return facts{m.ContextLength, m.Capabilities, m.Prices, m.TEE, m.Sources}
}

// catalogueServer serves body as the deployed gateway's models route and counts the requests.
func catalogueServer(t *testing.T, body string, opts ...infergate.Option) (*infergate.Client, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/models" {
			http.NotFound(w, r)
			return
		}
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	c, err := infergate.NewClient(append([]infergate.Option{infergate.WithBaseURL(srv.URL + "/api/v1"),
		infergate.WithAPIKey("sk-test"), infergate.WithMaxRetries(0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c, &calls
}

// Each spelling of a fact the route may send is read, prices as numbers or decimal strings; what
// the route sends wins over the table; a fact in an odd shape is left to the table rather than
// failing the list; both the one-pass decoder (the first body) and encoding/json (an unknown
// field in the second) read the same.
func TestModelFactsFromRoute(t *testing.T) {
	t.Parallel()
	entries := []string{
		`{"id":"llama-3.3-70b","context_length":131072,"input_price_per_million":0.7,"output_price_per_million":2.5,"capabilities":["tools","vision"],"tags":["TEE"]}`,
		`{"id":"glm-5.1","max_model_len":202752,"input_price_per_million":"1.20","output_price_per_million":"4.80"}`,
		`{"id":"xyzzy","context_window":32768,"input_price_per_million":"0.30","tee":true}`,
		`{"id":"kimi-k2.6:web","context_length":"262144","input_price_per_million":"x","output_price_per_million":1,"capabilities":"tools","tee":"yes"}`,
	}
	want := []facts{
		{ContextLength: 131072, Capabilities: []infergate.Capability{infergate.CapabilityTools, infergate.CapabilityVision},
			Prices: usdPrices(t, "0.7", "2.5"), TEE: true,
			Sources: infergate.FactSources{ContextLength: "server", Capabilities: "server", Prices: "server"}},
		{ContextLength: 202752, Capabilities: []infergate.Capability{infergate.CapabilityTools, infergate.CapabilityReasoning},
			Prices:  usdPrices(t, "1.20", "4.80"),
			Sources: infergate.FactSources{ContextLength: "server", Capabilities: modelsPage, Prices: "server"}},
		{ContextLength: 32768, TEE: true, Sources: infergate.FactSources{ContextLength: "server"}},
		{ContextLength: 256000, Capabilities: []infergate.Capability{infergate.CapabilityTools, infergate.CapabilityReasoning,
			infergate.CapabilityVision, infergate.CapabilityWebSearch}, Prices: usdPrices(t, "0.50", "3.25"),
			Sources: infergate.FactSources{ContextLength: modelsPage, Capabilities: modelsPage, Prices: priceFile}},
	}
	for _, tc := range []struct {
		name string
		body string
		n    int
	}{
		{"one-pass decoder", `{"object":"list","data":[` + strings.Join(entries[:3], ",") + `]}`, 3},
		{"encoding/json", `{"object":"list","data":[` + strings.Join(entries, ",") + `,{"id":"zz","extra":{}}]}`, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _ := catalogueServer(t, tc.body)
			models, err := c.Models.List(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			got := make([]facts, tc.n)
			for i := range got {
				got[i] = factsOf(models[i])
			}
			if diff := cmp.Diff(want[:tc.n], got); diff != "" {
				t.Errorf("facts (-want +got):\n%s", diff)
			}
		})
	}
}

// The fake gateway sends the facts a catalogue model sets, and only those: its default listing
// sends none, as the deployed gateway.
func TestModelFactsFromFakeGateway(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t, gatewaytest.WithModels(gatewaytest.CatalogModel{ID: "house-model", ContextLength: 65536,
		Capabilities: []string{"tools"}, InputPricePerMillion: "0.25", OutputPricePerMillion: "1.00"}))
	m, err := s.Client().Models.Resolve(t.Context(), "House Model")
	if err != nil {
		t.Fatal(err)
	}
	want := facts{ContextLength: 65536, Capabilities: []infergate.Capability{infergate.CapabilityTools},
		Prices: usdPrices(t, "0.25", "1.00"), Sources: infergate.FactSources{"server", "server", "server"}}
	if diff := cmp.Diff(want, factsOf(m)); diff != "" {
		t.Errorf("facts (-want +got):\n%s", diff)
	}

	plain := gatewaytest.New(t)
	resp, err := http.Get(plain.URL() + "/api/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var listing struct{ Data []map[string]json.RawMessage }
	if err := json.NewDecoder(resp.Body).Decode(&listing); err != nil {
		t.Fatal(err)
	}
	for _, entry := range listing.Data {
		for key := range entry {
			if !slices.Contains([]string{"id", "blockchainID", "created", "tags", "modelType"}, key) {
				t.Errorf("the default listing sends %q, which the gateway does not", key)
			}
		}
	}
}

// Without facts from the route, the built-in table gives them: its windows and capabilities by
// name or base name (":web", ":tee", "alt-"), its prices by the gateway's own lookup (suffixes cut,
// case ignored, the first key in file order that contains or is contained in the name), the
// capabilities a type or ":web" implies; a model the table does not know has no prices.
func TestModelFactsFromTable(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t, gatewaytest.WithModels(
		gatewaytest.CatalogModel{ID: "llama-3.3-70b"},
		gatewaytest.CatalogModel{ID: "venice-uncensored:web"},
		gatewaytest.CatalogModel{ID: "alt-glm-5"},
		gatewaytest.CatalogModel{ID: "GPT-5.5-Pro"},
		gatewaytest.CatalogModel{ID: "qwen3-coder-480b-a35b-instruct"},
		gatewaytest.CatalogModel{ID: "glm-4.7-flash:tee", Tags: []string{"Tee"}},
		gatewaytest.CatalogModel{ID: "text-embedding-bge-m3", ModelType: "EMBEDDING"},
		gatewaytest.CatalogModel{ID: "tts-kokoro", ModelType: "TTS"},
		gatewaytest.CatalogModel{ID: "whisper-1", ModelType: "STT"},
	))
	models, err := s.Client().Models.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	caps := func(c ...infergate.Capability) []infergate.Capability { return c }
	tools, reasoning := infergate.CapabilityTools, infergate.CapabilityReasoning
	want := []facts{
		{128000, caps(tools), usdPrices(t, "0.70", "2.50"), false, infergate.FactSources{modelsPage, modelsPage, priceFile}},
		{32000, caps(infergate.CapabilityWebSearch), usdPrices(t, "0.20", "0.90"), false,
			infergate.FactSources{modelsPage, modelsPage, priceFile}},
		{200000, caps(tools, reasoning), usdPrices(t, "1.00", "3.20"), false, infergate.FactSources{modelsPage, modelsPage, priceFile}},
		{0, nil, usdPrices(t, "38.00", "250.00"), false, infergate.FactSources{Prices: priceFile}},
		{256000, caps(tools), usdPrices(t, "0.70", "2.80"), false, infergate.FactSources{modelsPage, modelsPage, priceFile}},
		// The gateway's lookup finds the key glm-4.7 in glm-4.7-flash:tee before glm-4.7-flash, and bills that.
		{128000, caps(tools, reasoning), usdPrices(t, "0.50", "2.25"), true, infergate.FactSources{pricingPage, modelsPage, priceFile}},
		{0, caps(infergate.CapabilityEmbeddings), usdPrices(t, "0.10", "0.50"), false, infergate.FactSources{Capabilities: modelsPage, Prices: priceFile}},
		{0, caps(infergate.CapabilitySpeech), nil, false, infergate.FactSources{Capabilities: modelsPage}},
		{0, caps(infergate.CapabilityTranscription), nil, false, infergate.FactSources{Capabilities: "server"}},
	}
	got := make([]facts, len(models))
	for i, m := range models {
		got[i] = factsOf(m)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("facts (-want +got):\n%s", diff)
	}
}

// A caller's facts win over the table, later ones over earlier ones, a call's over its client's,
// and reach a model's variants; the route's own facts win over them all. Bad facts are refused.
func TestWithModelFacts(t *testing.T) {
	t.Parallel()
	c, _ := catalogueServer(t, `{"data":[{"id":"llama-3.3-70b"},{"id":"llama-3.3-70b:web"},{"id":"glm-5","context_length":204800},{"id":"mine"}]}`,
		infergate.WithModelFacts(infergate.Model{ID: "mine", ContextLength: 5}))
	ctx := t.Context()
	opts := []infergate.Option{infergate.WithModelFacts(
		infergate.Model{ID: "LLAMA-3.3-70B", ContextLength: 1000},
		infergate.Model{ID: "llama-3.3-70b", ContextLength: 131072, Prices: usdPrices(t, "0.5", "1")},
		infergate.Model{ID: "glm-5", ContextLength: 1, Capabilities: []infergate.Capability{infergate.CapabilityVision}},
	)}
	models, err := c.Models.List(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	option := infergate.FactsFromOption
	want := []facts{
		{131072, []infergate.Capability{infergate.CapabilityTools}, usdPrices(t, "0.5", "1"), false, infergate.FactSources{option, modelsPage, option}},
		{131072, []infergate.Capability{infergate.CapabilityTools, infergate.CapabilityWebSearch}, usdPrices(t, "0.5", "1"), false,
			infergate.FactSources{option, modelsPage, option}},
		{204800, []infergate.Capability{infergate.CapabilityVision}, usdPrices(t, "1.00", "3.20"), false,
			infergate.FactSources{"server", option, priceFile}},
		{ContextLength: 5, Sources: infergate.FactSources{ContextLength: option}},
	}
	got := make([]facts, len(models))
	for i, m := range models {
		got[i] = factsOf(m)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("facts (-want +got):\n%s", diff)
	}
	// A call's facts win over its client's.
	m, err := c.Models.Get(ctx, "mine", infergate.WithModelFacts(infergate.Model{ID: "mine", ContextLength: 7}))
	if err != nil || m.ContextLength != 7 || m.Sources.ContextLength != option {
		t.Errorf("Get with a call's facts = %+v, %v", m, err)
	}
	for _, bad := range []infergate.Model{{ID: " "}, {ID: "m", ContextLength: -1}} {
		if _, err := infergate.NewClient(infergate.WithModelFacts(bad)); !isFieldError(err, "ModelFacts") {
			t.Errorf("NewClient(WithModelFacts(%+v)) = %v, want a *ValidationError", bad, err)
		}
		if _, err := c.Models.List(ctx, infergate.WithModelFacts(bad)); !isFieldError(err, "ModelFacts") {
			t.Errorf("List(WithModelFacts(%+v)) = %v, want a *ValidationError", bad, err)
		}
	}
}

func isFieldError(err error, field string) bool {
	var v *infergate.ValidationError
	return errors.As(err, &v) && v.Field == field
}

// A Model encodes to JSON and back to itself, with encoding/json and through the catalogue's decoder.
func TestModelJSONRoundTrip(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t, gatewaytest.WithModels(
		gatewaytest.CatalogModel{ID: "llama-3.3-70b:web", Tags: []string{"tee"}},
		gatewaytest.CatalogModel{ID: "house", ContextLength: 4096, InputPricePerMillion: "1", OutputPricePerMillion: "2"},
		gatewaytest.CatalogModel{ID: "whisper-1", ModelType: "STT"},
	))
	models, err := s.Client().Models.List(t.Context(), infergate.WithModelFacts(infergate.Model{ID: "whisper-1", ContextLength: 448}))
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(map[string]any{"object": "list", "data": models})
	if err != nil {
		t.Fatal(err)
	}
	var direct []infergate.Model
	raw, _ := json.Marshal(models)
	if err := json.Unmarshal(raw, &direct); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(models, direct, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("encoding/json round trip (-want +got):\n%s", diff)
	}
	c, _ := catalogueServer(t, string(body))
	again, err := c.Models.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(models, again, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("served again (-want +got):\n%s", diff)
	}
}

// resolveCatalogue is the gateway's documented names, and a pair whose slugs collide.
var resolveCatalogue = []gatewaytest.CatalogModel{
	{ID: "llama-3.3-70b", BlockchainID: "0x" + strings.Repeat("ab", 32)}, {ID: "llama-3.2-3b"}, {ID: "mistral-31-24b"},
	{ID: "deepseek-v4-pro"}, {ID: "deepseek-v4-flash"}, {ID: "claude-opus-4.8"}, {ID: "glm-5.1"}, {ID: "glm-5.1:web"},
	{ID: "MiniMax-M2.7"}, {ID: "kimi-k2.6"}, {ID: "Qwen 3 Next"}, {ID: "a_b"}, {ID: "A-B"},
}

func TestModelsResolve(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t, gatewaytest.WithModels(resolveCatalogue...))
	client := s.Client()
	ctx := t.Context()
	if _, err := client.Models.Resolve(ctx, "llama-3.3-70b"); err != nil {
		t.Fatal(err)
	}
	downloads := len(s.Requests())
	for name, want := range map[string]string{
		"0x" + strings.Repeat("ab", 32): "llama-3.3-70b",
		"LLAMA-3.3-70B":                 "llama-3.3-70b",
		"Llama 3.3 70B":                 "llama-3.3-70b",
		"llama__3.3--70b":               "llama-3.3-70b",
		"qwen-3-next":                   "Qwen 3 Next",
		"QWEN_3_NEXT":                   "Qwen 3 Next",
		"GLM-5.1:WEB":                   "glm-5.1:web",
		"a b":                           "A-B", // the name a-b wins over a_b's slug, which two models claim
	} {
		m, err := client.Models.Resolve(ctx, name)
		if err != nil || m.ID != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", name, m.ID, err, want)
		}
	}
	for name, want := range map[string][]string{
		"llama-3.3-70b-instruct":        {"llama-3.3-70b"},
		"claude-opus-4-8":               {"claude-opus-4.8"},
		"deepseek-v4":                   {"deepseek-v4-pro", "deepseek-v4-flash"},
		"gpt-4o":                        nil,
		"mistral":                       nil,
		"0X" + strings.Repeat("AB", 32): nil, // hex ids are exact
	} {
		_, err := client.Models.Resolve(ctx, name)
		var notFound *infergate.ModelNotFoundError
		if !errors.As(err, &notFound) || !errors.Is(err, infergate.ErrNotFound) {
			t.Fatalf("Resolve(%q) = %v, want a *ModelNotFoundError matching ErrNotFound", name, err)
		}
		if notFound.Name != name || !slices.Equal(notFound.Suggestions, want) {
			t.Errorf("Resolve(%q): %+v, want suggestions %q", name, notFound, want)
		}
		for _, s := range want {
			if !strings.Contains(err.Error(), fmt.Sprintf("%q", s)) {
				t.Errorf("Resolve(%q): %q does not name %q", name, err, s)
			}
		}
	}
	if _, err := client.Models.Resolve(ctx, " "); !isFieldError(err, "Model") {
		t.Errorf("Resolve of a blank name = %v, want a *ValidationError", err)
	}
	if n := len(s.Requests()); n != downloads {
		t.Errorf("%d requests, want the %d of the first download only", n, downloads)
	}
}

// Resolve agrees with the fake gateway's own resolution, on names made from its catalogue by case
// changes, slugging and typos: a model Resolve finds serves the request, a near miss is the
// gateway's 400 with the same suggestions, and an unknown name is served by the default model.
func TestModelsResolveAgreesWithGateway(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t, gatewaytest.WithModels(resolveCatalogue...))
	client := s.Client(infergate.WithMaxRetries(0))
	ctx := t.Context()
	r := rand.New(rand.NewPCG(45, 6))
	mutate := []func(string) string{
		strings.ToUpper,
		strings.ToLower,
		func(n string) string { return strings.ReplaceAll(n, "-", []string{" ", "_", "--", " _ "}[r.IntN(4)]) },
		func(n string) string { // a letter dropped
			i := r.IntN(len(n))
			return n[:i] + n[i+1:]
		},
		func(n string) string { // a letter doubled or changed
			i := r.IntN(len(n))
			return n[:i] + string("abx-.9"[r.IntN(6)]) + n[i:]
		},
		func(n string) string { // two neighbours swapped
			i := r.IntN(len(n) - 1)
			return n[:i] + n[i+1:i+2] + n[i:i+1] + n[i+2:]
		},
		func(n string) string {
			return n + []string{"-turbo", "-instruct", "-instruct-turbo", ":web", "-v2"}[r.IntN(5)]
		},
		func(n string) string { return strings.Map(flipCase(r), n) },
	}
	var found, near, unknown int
	for range 300 {
		name := resolveCatalogue[r.IntN(len(resolveCatalogue))].ID
		for range 1 + r.IntN(3) {
			if len(name) > 2 {
				name = mutate[r.IntN(len(mutate))](name)
			}
		}
		if strings.TrimSpace(name) == "" {
			continue
		}
		resolved, resolveErr := client.Models.Resolve(ctx, name)
		answer, chatErr := client.Chat.Create(ctx, infergate.ChatRequest{Model: name,
			Messages: []infergate.Message{infergate.UserMessage("hi")}})
		var notFound *infergate.ModelNotFoundError
		var apiErr *infergate.APIError
		switch {
		case resolveErr == nil:
			found++
			if chatErr != nil || answer.Model != resolved.ID {
				t.Errorf("%q: Resolve gives %q, the gateway %v (%v)", name, resolved.ID, answerModel(answer), chatErr)
			}
		case !errors.As(resolveErr, &notFound):
			t.Fatalf("%q: %v", name, resolveErr)
		case len(notFound.Suggestions) == 0:
			unknown++
			if chatErr != nil || answer.Model != gatewaytest.DefaultModel {
				t.Errorf("%q: unknown to Resolve, but the gateway answers %v (%v)", name, answerModel(answer), chatErr)
			}
		case errors.As(chatErr, &apiErr) && apiErr.Code == "model_not_found_near_miss":
			near++
			var body struct {
				Error struct{ Suggestions []string }
			}
			if err := json.Unmarshal(apiErr.Body, &body); err != nil || !slices.Equal(body.Error.Suggestions, notFound.Suggestions) {
				t.Errorf("%q: Resolve suggests %q, the gateway %q (%v)", name, notFound.Suggestions, body.Error.Suggestions, err)
			}
		default:
			t.Errorf("%q: Resolve suggests %q, the gateway answers %v (%v)", name, notFound.Suggestions, answerModel(answer), chatErr)
		}
	}
	if found < 30 || near < 30 || unknown < 10 {
		t.Errorf("names found %d, near misses %d, unknown %d: the names do not try each outcome enough", found, near, unknown)
	}
}

func answerModel(c *infergate.ChatCompletion) string {
	if c == nil {
		return "nothing"
	}
	return c.Model
}

// flipCase changes the case of some letters.
func flipCase(r *rand.Rand) func(rune) rune {
	return func(c rune) rune {
		if r.IntN(3) > 0 {
			return c
		}
		if unicode.IsUpper(c) {
			return unicode.ToLower(c)
		}
		return unicode.ToUpper(c)
	}
}
