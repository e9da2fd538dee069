package jsonscan

import (
	"encoding/json"
	"fmt"
	"testing"
)

// refUsage is a usage object as encoding/json reads it.
type refUsage struct {
	Prompt     int `json:"prompt_tokens"`
	Completion int `json:"completion_tokens"`
	Total      int `json:"total_tokens"`
}

// checkUsage reports how DecodeUsage and encoding/json differ on b, when the decoder accepts it.
func checkUsage(b []byte) (declined bool, diff string) {
	got, ok := DecodeUsage(b)
	if !ok {
		return true, ""
	}
	var ref refUsage
	if err := json.Unmarshal(b, &ref); err != nil {
		return false, "accepted, but encoding/json refuses it: " + err.Error()
	}
	want := Usage{Prompt: int64(ref.Prompt), Completion: int64(ref.Completion), Total: int64(ref.Total)}
	if got != want {
		return false, fmt.Sprintf("decoded %+v, encoding/json %+v", got, want)
	}
	return false, ""
}

var usageSeeds = []string{
	`{"prompt_tokens":12,"completion_tokens":11000,"total_tokens":11012}`,
	` { "total_tokens" : null , "prompt_tokens":-3 } `,
	`{}`,
}

func TestDecodeUsage(t *testing.T) {
	t.Parallel()
	checkCases(t, checkUsage, []decodeCase{
		{usageSeeds[0], false},
		{usageSeeds[1], false},
		{usageSeeds[2], false},
		{`{"prompt_tokens":999999999}`, false},
		{`{"prompt_tokens":1,"completion_tokens_details":{"reasoning_tokens":1}}`, true},
		{`{"Prompt_Tokens":1}`, true},
		{`{"prompt_tokens":1,"prompt_tokens":2}`, true},
		{`{"prompt_tokens":1.5}`, true},
		{`{"prompt_tokens":1e3}`, true},
		{`{"prompt_tokens":"1"}`, true},
		{`{"prompt_tokens":1234567890}`, true},
		{`{"prompt_tokens":01}`, true},
		{`{"prompt_tokens":1} x`, true},
		{`null`, true},
		{`[]`, true},
	})
}

// FuzzDecodeUsage holds DecodeUsage to encoding/json: whatever it accepts, encoding/json reads the
// same way.
func FuzzDecodeUsage(f *testing.F) {
	for _, seed := range usageSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if _, diff := checkUsage([]byte(body)); diff != "" {
			t.Fatalf("%q: differs from encoding/json:\n%s", body, diff)
		}
	})
}
