// Package modelfacts is the SDK's built-in table of what the gateway's published lists say about
// its models (context windows, capabilities, prices), for when the models route does not say it,
// and the gateway's own rule for finding a model's price.
//
// Refresh it from the sources Date and the Source constants name: the docs' model and pricing
// pages (api-gateway-docs documentation/models.mdx and documentation/models/pricing.mdx) and the
// gateway's price file (Morpheus-Marketplace-API models/prod_model_price.json); then move Date and
// the commits in the Source constants, and keep Prices in the file's order, which its lookup
// depends on.
package modelfacts

import "strings"

// Date is when the table was last checked against its sources.
const Date = "2026-07-23"

// Where the table's values come from: a document, the commit it was read at and that commit's date.
const (
	ModelsPage  = "table " + Date + ": api-gateway-docs documentation/models.mdx@adc92e8 (2026-06-10)"
	PricingPage = "table " + Date + ": api-gateway-docs documentation/models/pricing.mdx@adc92e8 (2026-06-10)"
	PriceFile   = "table " + Date + ": Morpheus-Marketplace-API models/prod_model_price.json@0e2e2cb (2026-06-21)"
)

// The capabilities the docs' tables name, as the SDK's Capability values spell them. The docs'
// "code" column has no capability of its own.
const (
	Tools         = "tools"
	Reasoning     = "reasoning"
	Vision        = "vision"
	WebSearch     = "web_search"
	Embeddings    = "embeddings"
	Speech        = "speech"
	Transcription = "transcription"
)

// Fact is what the docs publish about a model.
type Fact struct {
	Name          string   // the request name as the docs spell it
	ContextLength int      // tokens; 0 when no source gives it
	ContextSource string   // where ContextLength comes from
	Capabilities  []string // none when the docs list none
	CapsSource    string   // where Capabilities come from; empty when no source lists the model's
}

// K is the thousand the docs' "128K" and "1M" mean here: 1,000, not 1,024. The docs never say; a
// model card's "128K" is often 131,072 tokens, so reading 1,000 understates a window by 2.4% at
// most, and a check against it refuses a request that would fit rather than send one that cannot.
// A window the models route or WithModelFacts gives wins over it.
const K = 1000

// facts is the docs' model table. Where the sources disagree, the note says which one is used.
var facts = []Fact{
	{"deepseek-v4-pro", 1000 * K, ModelsPage, []string{Tools, Reasoning}, ModelsPage},
	{"deepseek-v4-flash", 1000 * K, ModelsPage, []string{Tools, Reasoning}, ModelsPage},
	{"glm-5.1", 200 * K, ModelsPage, []string{Tools, Reasoning}, ModelsPage},
	// Only a footnote of glm-5.1 in the pricing page; the first-party app marks it reasoning, the
	// name and the models page do not.
	{"glm-5.1-non-thinking", 200 * K, ModelsPage, []string{Tools}, ModelsPage},
	{"glm-5", 200 * K, ModelsPage, []string{Tools, Reasoning}, ModelsPage},
	// Not in the models page's tables.
	{"glm-4.7", 198 * K, PricingPage, []string{Tools}, PricingPage},
	{"glm-4.7-thinking", 198 * K, ModelsPage, []string{Tools, Reasoning}, ModelsPage},
	// The models page says 200K, the pricing page and the first-party app 128K: the smaller.
	{"glm-4.7-flash", 128 * K, PricingPage, []string{Tools, Reasoning}, ModelsPage},
	{"kimi-k2.6", 256 * K, ModelsPage, []string{Tools, Reasoning, Vision}, ModelsPage},
	{"kimi-k2.5", 256 * K, ModelsPage, []string{Tools, Reasoning, Vision}, ModelsPage},
	{"MiniMax-M2.7", 198 * K, ModelsPage, []string{Tools, Reasoning}, ModelsPage},
	{"minimax-m2.5", 198 * K, ModelsPage, []string{Tools, Reasoning}, ModelsPage},
	{"qwen3-coder-480b-a35b-instruct", 256 * K, ModelsPage, []string{Tools}, ModelsPage},
	// The pricing page adds reasoning; the models page does not.
	{"qwen3-235b", 128 * K, ModelsPage, []string{Tools}, ModelsPage},
	{"qwen3-next-80b", 256 * K, ModelsPage, []string{Tools}, ModelsPage},
	{"qwen35-35b-a3b", 256 * K, ModelsPage, []string{Tools, Vision}, ModelsPage},
	{"qwen35-9b", 256 * K, ModelsPage, []string{Tools, Vision}, ModelsPage},
	{"arcee-trinity-large-thinking", 256 * K, ModelsPage, []string{Tools, Reasoning}, ModelsPage},
	{"gemma-4-31b", 256 * K, ModelsPage, []string{Reasoning, Vision}, ModelsPage},
	{"gemma-4-26b-a4b", 256 * K, ModelsPage, []string{Reasoning, Vision}, ModelsPage},
	{"gpt-oss-120b", 128 * K, ModelsPage, []string{Tools}, ModelsPage},
	{"hermes-3-llama-3.1-405b", 128 * K, ModelsPage, nil, ModelsPage},
	{"llama-3.3-70b", 128 * K, ModelsPage, []string{Tools}, ModelsPage},
	{"llama-3.2-3b", 128 * K, ModelsPage, []string{Tools}, ModelsPage},
	{"mistral-31-24b", 128 * K, ModelsPage, []string{Tools, Vision}, ModelsPage},
	{"venice-uncensored", 32 * K, ModelsPage, nil, ModelsPage},
	// The proprietary models ("anonymized" in the docs) have no published window or capabilities.
	{"text-embedding-bge-m3", 0, "", []string{Embeddings}, ModelsPage},
	{"tts-kokoro", 0, "", []string{Speech}, ModelsPage},
}

var byName = func() map[string]int {
	m := make(map[string]int, len(facts))
	for i, f := range facts {
		m[strings.ToLower(f.Name)] = i
	}
	return m
}()

// Lookup returns the table's facts about a catalogue name: its own, or its base model's (Base).
func Lookup(name string) (Fact, bool) {
	i, ok := byName[strings.ToLower(name)]
	if !ok {
		i, ok = byName[strings.ToLower(Base(name))]
	}
	if !ok {
		return Fact{}, false
	}
	return facts[i], true
}

// Base is the model a catalogue entry is a variant of, as the first-party app reads names: a
// trailing ":web" or ":tee" and a leading "alt-" (alternate routing) cut off, without regard to
// case. A name that is no variant is its own base.
func Base(name string) string {
	base := name
	for _, suffix := range []string{":web", ":tee"} {
		if len(base) > len(suffix) && strings.EqualFold(base[len(base)-len(suffix):], suffix) {
			base = base[:len(base)-len(suffix)]
		}
	}
	if len(base) > len("alt-") && strings.EqualFold(base[:len("alt-")], "alt-") {
		base = base[len("alt-"):]
	}
	return base
}
