package infergate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/infergate/infergate-go/internal/redact"
)

// completionsAgree checks that the one-pass decode of a completion body, when it takes the body,
// gives what encoding/json gives, and that errorIn200 finds no error in it when the one pass saw
// no top-level key that may report one; it reports whether the one pass took it.
func completionsAgree(t *testing.T, body []byte) bool {
	t.Helper()
	var fast wireCompletion
	decoded, envelope := fast.decodeFast(body)
	if !decoded {
		return false
	}
	if !envelope {
		noErrorIn200(t, body)
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

// noErrorIn200 fails t when errorIn200 takes body for an error, on a route that reads "success"
// too: decodeJSON does not search a body a fast decoder saw no envelope key in.
func noErrorIn200(t *testing.T, body []byte) {
	t.Helper()
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{}}
	if err := (&config{redactor: redact.New(redactedText)}).errorIn200(&route{successFlag: true}, resp, body); err != nil {
		t.Fatalf("%s: the fast decoder saw no envelope key, errorIn200 finds an error: %v", body, err)
	}
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

// decodeJSONSearching is decodeJSON as it was before fast decoders reported their top-level keys:
// every body searched for an error before it is decoded.
func decodeJSONSearching(c *config, r *route, resp *http.Response, body []byte, out any) error {
	if err := c.errorIn200(r, resp, body); err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if fast, ok := out.(fastDecoder); ok {
		if decoded, _ := fast.decodeFast(body); decoded {
			keepRaw(out, body)
			return nil
		}
	}
	return c.unmarshal(resp, body, out)
}

// envelopeKeys are top-level keys encoding/json may take for "error" or "success", spelt as
// servers and the fuzzer may spell them, and keys that only look like them.
var envelopeKeys = []string{`"error"`, `"Error"`, `"ERROR"`, `"err_or"`, `"\u0065rror"`, `"success"`, `"Success"`,
	`"ſuccess"`, `"succeſs"`, `"suc-cess"`, `"errors"`, `"erro"`, `"message"`, `"detail"`}

// envelopeValues are values those keys take: some report a failure, some do not.
var envelopeValues = []string{`null`, `false`, `true`, `""`, `{}`, `[]`, `"quota exhausted"`, `{"message":"boom","code":429}`, `0`, `[1]`}

// FuzzErrorIn200Skipped holds decodeJSON, which searches a body for an error only when its fast
// decoder saw a top-level key that may report one, to the search of every body: the same error or
// none, and the same answer, for chat completions and catalogues, on routes that read "success"
// and routes that do not.
func FuzzErrorIn200Skipped(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 24 {
		body := randomToolAnswer(r)
		key, value := envelopeKeys[i%len(envelopeKeys)], envelopeValues[r.IntN(len(envelopeValues))]
		if i%3 == 0 {
			body = append(fmt.Appendf(nil, `{%s:%s,`, key, value), body[1:]...)
		} else {
			body = fmt.Appendf(body[:len(body)-1:len(body)-1], `,%s:%s}`, key, value)
		}
		f.Add(body, i%2 == 0)
	}
	f.Add([]byte(`{"error":"quota exhausted"}`), false)
	f.Add([]byte(`{"success":false,"message":"no stake"}`), true)
	f.Add([]byte(`{"object":"list","data":[],"error":{"message":"x"}}`), false)
	f.Add([]byte(`[{"id":"m"}]`), true)
	f.Add([]byte(" \n"), false)
	f.Fuzz(func(t *testing.T, body []byte, successFlag bool) {
		c := &config{redactor: redact.New(redactedText, secretKey)}
		resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"X-Request-Id": {"r1"}}}
		sameDecode(t, c, &route{successFlag: successFlag}, resp, body, &wireCompletion{}, &wireCompletion{})
		sameDecode(t, c, &route{successFlag: successFlag}, resp, body, &catalogList{}, &catalogList{})
	})
}

// sameDecode decodes body with decodeJSON into got and with decodeJSONSearching into want, and
// fails t when the errors or the answers differ.
func sameDecode[T any](t *testing.T, c *config, r *route, resp *http.Response, body []byte, got, want *T) {
	t.Helper()
	gotErr, wantErr := decodeJSON(c, r, resp, body, got), decodeJSONSearching(c, r, resp, body, want)
	if fmt.Sprintf("%T %v", gotErr, gotErr) != fmt.Sprintf("%T %v", wantErr, wantErr) {
		t.Fatalf("%q: error %v, searching every body gives %v", body, gotErr, wantErr)
	}
	if diff := cmp.Diff(want, got, cmp.Exporter(func(reflect.Type) bool { return true })); diff != "" {
		t.Fatalf("%q: the answer differs from searching every body (-searching +decodeJSON):\n%s", body, diff)
	}
}
