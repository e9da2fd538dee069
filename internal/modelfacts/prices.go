package modelfacts

import (
	"strings"
	"sync"
	"sync/atomic"
)

// Price is an entry of the gateway's price file: USD per million tokens, as decimal text.
type Price struct {
	Key           string // the file's key; the lookup lowercases it
	Input, Output string
}

// The gateway's price for a name no key matches. The SDK does not apply it (see LookupPrice).
const (
	DefaultInput  = "0.50"
	DefaultOutput = "2.00"
)

// Prices is the gateway's price file, models/prod_model_price.json, in the file's order, which the
// substring step of LookupPrice depends on.
var Prices = []Price{
	{"glm-5.2", "1.25", "4.40"},
	{"glm-5.2:web", "1.25", "4.40"},
	{"glm-5.1", "1.50", "5.00"},
	{"glm-5.1:web", "1.50", "5.00"},
	{"GLM-5.1", "1.50", "5.00"},
	{"glm-5.1-non-thinking", "1.50", "5.00"},
	{"glm-5.1-non-thinking:web", "1.50", "5.00"},
	{"glm-5", "1.00", "3.20"},
	{"glm-5:web", "1.00", "3.20"},
	{"GLM-5", "1.00", "3.20"},
	{"glm-4.7", "0.50", "2.25"},
	{"glm-4.7:web", "0.50", "2.25"},
	{"glm-4.7-thinking", "0.45", "2.00"},
	{"glm-4.7-thinking:web", "0.45", "2.00"},
	{"glm-4.7-flash", "0.10", "0.50"},
	{"glm-4.7-flash:web", "0.10", "0.50"},
	{"kimi-k2.7-code", "0.75", "4.00"},
	{"kimi-k2.7-code:web", "0.75", "4.00"},
	{"kimi-k2.6", "0.50", "3.25"},
	{"kimi-k2.6:web", "0.50", "3.25"},
	{"kimi-k2.5", "0.60", "3.00"},
	{"kimi-k2.5:web", "0.60", "3.00"},
	{"Kimi-K2.5", "0.60", "3.00"},
	{"kimi-k2-thinking", "0.60", "3.00"},
	{"gemma-4-31b", "0.15", "0.40"},
	{"Gemma-4-31b", "0.15", "0.40"},
	{"Gemma-4-31b:web", "0.15", "0.40"},
	{"gemma-4-26b-a4b", "0.15", "0.40"},
	{"Gemma-4-26b-a4b", "0.15", "0.40"},
	{"Gemma-4-26b-a4b:web", "0.15", "0.40"},
	{"qwen3-235b", "0.40", "3.00"},
	{"qwen3-235b:web", "0.40", "3.00"},
	{"qwen-3-235b", "0.40", "3.00"},
	{"qwen3-coder-480b-a35b-instruct", "0.70", "2.80"},
	{"qwen3-coder-480b-a35b-instruct:web", "0.70", "2.80"},
	{"qwen3-coder-480b-a35b", "0.70", "2.80"},
	{"qwen3-next-80b", "0.15", "1.50"},
	{"qwen3-next-80b:web", "0.15", "1.50"},
	{"qwen35-35b-a3b", "0.30", "1.25"},
	{"qwen35-35b-a3b:web", "0.30", "1.25"},
	{"qwen35-9b", "0.05", "0.15"},
	{"qwen35-9b:web", "0.05", "0.15"},
	{"arcee-trinity-large-thinking", "0.30", "1.00"},
	{"Arcee-Trinity-Large-Thinking", "0.30", "1.00"},
	{"Arcee-Trinity-Large-Thinking:web", "0.30", "1.00"},
	{"minimax-m2.5", "0.30", "1.20"},
	{"MiniMax-M2.5", "0.30", "1.20"},
	{"MiniMax-M2.5:web", "0.30", "1.20"},
	{"MiniMax-M2.7", "0.35", "1.50"},
	{"MiniMax-M2.7:web", "0.35", "1.50"},
	{"deepseek-v4-pro", "1.60", "3.50"},
	{"deepseek-v4-pro:web", "1.60", "3.50"},
	{"deepseek-v4-flash", "0.15", "0.30"},
	{"deepseek-v4-flash:web", "0.15", "0.30"},
	{"gpt-oss-120b", "0.07", "0.28"},
	{"gpt-oss-120b:web", "0.07", "0.28"},
	{"hermes-3-llama-3.1-405b", "1.00", "3.00"},
	{"hermes-3-llama-3.1-405b:web", "1.00", "3.00"},
	{"llama-3.3-70b", "0.70", "2.50"},
	{"llama-3.3-70b:web", "0.70", "2.50"},
	{"llama-3-3-70b", "0.70", "2.50"},
	{"llama-3.2-3b", "0.10", "0.50"},
	{"llama-3.2-3b:web", "0.10", "0.50"},
	{"llama-3-2-3b", "0.10", "0.50"},
	{"mistral-31-24b", "0.50", "2.00"},
	{"mistral-31-24b:web", "0.50", "2.00"},
	{"mistral-small-24b", "0.50", "2.00"},
	{"venice-uncensored", "0.20", "0.90"},
	{"claude-fable-5", "12.00", "60.00"},
	{"claude-fable-5:web", "12.00", "60.00"},
	{"claude-opus-4.8", "6.00", "30.00"},
	{"claude-opus-4.8:web", "6.00", "30.00"},
	{"clause-opus-4.8:web", "6.00", "30.00"},
	{"gemini-3.1-pro-preview", "2.50", "15.00"},
	{"gemini-3.1-pro-preview:web", "2.50", "15.00"},
	{"gpt-5.5-pro", "38.00", "250.00"},
	{"gpt-5.5-pro:web", "38.00", "250.00"},
	{"gpt-5.5", "6.50", "38.00"},
	{"gpt-5.5:web", "6.50", "38.00"},
	{"grok-4.20", "1.40", "2.80"},
	{"grok-4.20:web", "1.40", "2.80"},
	{"text-embedding-bge-m3", "0.10", "0.50"},
}

// priceKeys are the gateway's lowercased keys as its dictionary holds them: each where it was first
// inserted, with the entry assigned to it last.
var priceKeys, priceIndex = func() ([]string, map[string]int) {
	index := make(map[string]int, len(Prices))
	var keys []string
	for i, p := range Prices {
		key := strings.ToLower(p.Key)
		if _, dup := index[key]; !dup {
			keys = append(keys, key)
		}
		index[key] = i
	}
	return keys, index
}()

// LookupPrice finds the entry of Prices the gateway bills a resolved catalogue name at
// (src/services/pricing/hardcoded_provider.py): the name lowercased, trimmed, "_" made "-", and a
// trailing "-instruct", then "-chat", then "-base" cut off (each once, in that order); then the
// key equal to it; else the first key, in file order, that it contains or that contains it.
// ok is false when none matches, where the gateway bills DefaultInput and DefaultOutput.
//
// A name's answer is remembered: a catalogue lists the same names on every download, and a name no
// key equals is tried against every key.
func LookupPrice(name string) (i int, ok bool) {
	if m, found := priceMemo.Load(name); found {
		p := m.(priceMatch)
		return p.i, p.ok
	}
	i, ok = lookupPrice(name)
	if priceMemoSize.Add(1) <= maxPriceMemo {
		// A copy: the name may be cut from a large body, which the memo must not keep alive.
		priceMemo.Store(strings.Clone(name), priceMatch{i, ok})
	}
	return i, ok
}

// priceMemo holds LookupPrice's answers by name, for at most maxPriceMemo names, so that a server
// sending ever new names cannot grow it.
var (
	priceMemo     sync.Map // string -> priceMatch
	priceMemoSize atomic.Int64
)

const maxPriceMemo = 4096

type priceMatch struct {
	i  int
	ok bool
}

// lookupPrice is LookupPrice's rule, worked out.
func lookupPrice(name string) (int, bool) {
	n := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "_", "-")
	for _, suffix := range []string{"-instruct", "-chat", "-base"} {
		n = strings.TrimSuffix(n, suffix)
	}
	if i, ok := priceIndex[n]; ok {
		return i, true
	}
	for _, key := range priceKeys {
		// Of two texts, only the shorter can be in the longer (equal ones were found above).
		if len(key) < len(n) && strings.Contains(n, key) || len(key) > len(n) && strings.Contains(key, n) {
			return priceIndex[key], true
		}
	}
	return 0, false
}
