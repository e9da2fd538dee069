package infergate

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// completionsAgree checks that the one-pass decode of a completion body, when it takes the body,
// gives what encoding/json gives; it reports whether the one pass took it.
func completionsAgree(t *testing.T, body []byte) bool {
	t.Helper()
	var fast wireCompletion
	if !fast.decodeFast(body) {
		return false
	}
	var slow wireCompletion
	if err := json.Unmarshal(body, &slow); err != nil {
		t.Fatalf("%s: the one pass took it, encoding/json refuses it: %v", body, err)
	}
	if diff := cmp.Diff(slow.completion(), fast.completion(), cmp.AllowUnexported(ChatCompletion{})); diff != "" {
		t.Fatalf("%s: the one pass differs from encoding/json (-json +one pass):\n%s", body, diff)
	}
	return true
}

// randomAnswerText is a string with what providers put in answers: quotes, escapes, non-ASCII,
// JSON text.
func randomAnswerText(r *rand.Rand) string {
	pieces := []string{"Paris", `{"city":"Paris"}`, "\"", "\\", "\n", "é", "😀", "\u2028", "\t", "<b>", "", " ", "{", "}", "\x01"}
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// randomToolAnswer is a completion body whose message may carry text, reasoning and tool calls,
// spelled as providers spell them (missing fields, nulls, an index on calls, unknown keys).
func randomToolAnswer(r *rand.Rand) []byte {
	str := func() string { s, _ := json.Marshal(randomAnswerText(r)); return string(s) }
	opt := func(key, value string) string {
		switch r.IntN(3) {
		case 0:
			return ""
		case 1:
			return fmt.Sprintf(`%q:null,`, key)
		}
		return fmt.Sprintf(`%q:%s,`, key, value)
	}
	var calls []string
	for i := range r.IntN(4) {
		args := str()
		if r.IntN(4) == 0 {
			args = `"{\"a\":[1,2,{\"b\":\"\\u00e9\"}]}"`
		}
		calls = append(calls, fmt.Sprintf(`{%s%s%s"function":{%s"arguments":%s}%s}`,
			[]string{"", fmt.Sprintf(`"index":%d,`, i)}[r.IntN(2)], opt("id", str()), opt("type", `"function"`),
			opt("name", str()), args, []string{"", `,"extra":{"x":[null]}`}[r.IntN(2)]))
	}
	toolCalls := ""
	switch r.IntN(4) {
	case 0:
	case 1:
		toolCalls = `"tool_calls":null,`
	default:
		toolCalls = `"tool_calls":[` + strings.Join(calls, ",") + `],`
	}
	message := fmt.Sprintf(`{"role":"assistant",%s%s%s%s"refusal":null}`, opt("content", str()), opt("reasoning_content", str()), opt("reasoning", str()), toolCalls)
	return fmt.Appendf(nil, `{"id":"chatcmpl-1","object":"chat.completion","created":1731000000,"model":"m","choices":[{"index":0,"message":%s,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`, message)
}

// TestCompletionOnePassAgreesWithEncodingJSON holds Create's one-pass decode to encoding/json on
// random answers with tool calls, and on the same answers with a byte changed.
func TestCompletionOnePassAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(*objectSeed, 23))
	took, calls := 0, 0
	answers := Scaled(3000) // a tenth under the race detector: one goroutine's parsing
	for range answers {
		body := randomToolAnswer(r)
		if completionsAgree(t, body) {
			took++
			calls += strings.Count(string(body), `"function":`)
		}
		changed := []byte(string(body))
		changed[r.IntN(len(changed))] = "\"\\{}[],:0an \x00\xff"[r.IntN(14)]
		completionsAgree(t, changed)
	}
	if took < answers*29/30 || calls < answers/2 {
		t.Fatalf("the one pass took %d of %d answers, with %d calls", took, answers, calls)
	}
}

// FuzzCompletionOnePass holds Create's one-pass decode to encoding/json on any body.
func FuzzCompletionOnePass(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 8 {
		f.Add(randomToolAnswer(r))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		completionsAgree(t, body)
	})
}
