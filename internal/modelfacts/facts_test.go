package modelfacts

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/infergate/infergate-go/internal/leakcheck"
)

// TestMain fails the run if a test left a goroutine behind.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Run(m))
}

// LookupPrice finds the key the gateway's pricing provider finds (each want is what the provider's
// lookup, run in Python on the same price file, gave): suffixes cut once each in order, case and "_" ignored, the first key in
// file order that contains the name or is contained in it, nothing for a name near no key.
func TestLookupPrice(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"llama-3.3-70b":                "llama-3.3-70b",
		"Llama-3.3-70B-Instruct":       "llama-3.3-70b",
		"meta-llama-3.3-70b":           "llama-3.3-70b",
		" LLAMA_3.3_70B ":              "llama-3.3-70b",
		"llama-3.3-70b-chat-instruct":  "llama-3.3-70b",
		"llama-3.3-70b-instruct-chat":  "llama-3.3-70b",
		"venice-uncensored:web":        "venice-uncensored",
		"GPT-5.5-Pro":                  "gpt-5.5-pro",
		"gpt-5.5":                      "gpt-5.5",
		"glm-4.7-flash:tee":            "glm-4.7",
		"alt-glm-5":                    "glm-5",
		"qwen3-coder-480b-a35b":        "qwen3-coder-480b-a35b",
		"glm":                          "glm-5.2",
		"-instruct":                    "glm-5.2", // cut to "", which every key contains
		"text-embedding-bge-m3":        "text-embedding-bge-m3",
		"clause-opus-4.8:web":          "clause-opus-4.8:web",
		"tts-kokoro":                   "",
		"whisper-1":                    "",
		"qwen3-coder-480b-a35b-base":   "qwen3-coder-480b-a35b",
		"kimi-k2.5:web:tee":            "kimi-k2.5",
		"deepseek-v4-flash-base-chat":  "deepseek-v4-flash",
		"deepseek-v4-flash-chat-base":  "deepseek-v4-flash",
		"arcee-trinity-large-thinking": "arcee-trinity-large-thinking",
	} {
		i, ok := LookupPrice(name)
		got := ""
		if ok {
			got = strings.ToLower(Prices[i].Key)
		}
		if got != want {
			t.Errorf("LookupPrice(%q) = %q, want %q", name, got, want)
		}
	}
}

// Every price is a plain decimal, every fact names its sources, and Lookup reaches a variant's
// base model.
func TestTable(t *testing.T) {
	t.Parallel()
	decimal := regexp.MustCompile(`^[0-9]+\.[0-9]+$`)
	for _, p := range append(Prices, Price{"default", DefaultInput, DefaultOutput}) {
		if !decimal.MatchString(p.Input) || !decimal.MatchString(p.Output) {
			t.Errorf("%s: prices %q, %q", p.Key, p.Input, p.Output)
		}
	}
	for _, f := range facts {
		if (f.ContextLength > 0) != (f.ContextSource != "") || f.CapsSource == "" {
			t.Errorf("%s: a fact without its source", f.Name)
		}
	}
	for name, want := range map[string]string{"GLM-5.1:WEB": "glm-5.1", "alt-kimi-k2.6": "kimi-k2.6",
		"minimax-m2.7:tee": "MiniMax-M2.7", "alt-": "", "nope": ""} {
		f, _ := Lookup(name)
		if f.Name != want {
			t.Errorf("Lookup(%q) = %q, want %q", name, f.Name, want)
		}
	}
}
