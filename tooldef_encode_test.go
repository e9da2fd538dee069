package infergate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// badMarshaler encodes to whatever it holds, JSON or not.
type badMarshaler string

func (m badMarshaler) MarshalJSON() ([]byte, error) { return []byte(m), nil }

// schemaPieces are fragments of raw schemas: compact JSON, whitespace, escapes, characters
// encoding/json escapes, invalid UTF-8 and broken JSON.
var schemaPieces = []string{
	`"type":"object"`, `"properties":{"a":{"type":"string","description":"x"}}`, `"required":["a"]`,
	`"enum":[1,-2.5e3,true,null]`, `"d":"é日本🙂"`, `"d":"\u00e9\n\"\\\/"`, `"d":"<b>&amp;</b>"`,
	"\"d\":\"\u2028\u2029\"", `"d":"\ud83d\ude00"`, `"d":"\ud800"`, "\"d\":\"\xff\"",
	` "type" : "object" `, "\n\t\"n\":\r1", `"a":01`, `"a":`, `"a":[1,]`, `"a":tru`, `"a":{"b":[[[]]]}`,
}

func randomSchema(r *rand.Rand) json.RawMessage {
	var b strings.Builder
	b.WriteByte('{')
	for i := range r.IntN(4) {
		if i > 0 {
			b.WriteByte(',')
		}
		piece := schemaPieces[r.IntN(len(schemaPieces))]
		if r.IntN(2) == 0 {
			piece = schemaPieces[r.IntN(4)]
		}
		b.WriteString(piece)
	}
	b.WriteByte('}')
	raw := []byte(b.String())
	switch r.IntN(10) {
	case 0:
		raw = raw[:r.IntN(len(raw)+1)]
	case 1:
		raw = append([]byte(" \n"), raw...)
	case 2:
		raw = []byte(`[` + string(raw) + `]`)
	}
	return raw
}

func randomParameters(r *rand.Rand) any {
	switch r.IntN(12) {
	case 0:
		return nil
	case 1:
		return map[string]any{"type": "object", "description": "<a & b>", "n": 1.5}
	case 2:
		return struct {
			Type  string `json:"type"`
			Extra string `json:"extra,omitempty"`
		}{Type: "object"}
	case 3:
		raw := randomSchema(r)
		return &raw
	case 4:
		return json.RawMessage(nil)
	case 5:
		return badMarshaler(randomSchema(r))
	case 6:
		return make(chan int)
	default:
		return randomSchema(r)
	}
}

// checkToolsEncoding holds appendTools to json.Marshal: the same bytes, or the same error; and
// with what a request's check proved of the parameters, when it takes the tools, the same bytes.
func checkToolsEncoding(t *testing.T, tools []Tool) {
	t.Helper()
	want, wantErr := json.Marshal(tools)
	got, err := appendTools([]byte(`,"tools":`), tools, 0)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("appendTools(%#v): error %v, encoding/json's %v", tools, err, wantErr)
	}
	if err != nil {
		if fmt.Sprintf("%T %v", err, err) != fmt.Sprintf("%T %v", wantErr, wantErr) {
			t.Fatalf("appendTools(%#v): error %T %v, encoding/json's %T %v", tools, err, err, wantErr, wantErr)
		}
		return
	}
	if !bytes.Equal(got, append([]byte(`,"tools":`), want...)) {
		t.Fatalf("appendTools(%#v) wrote\n%s\nencoding/json writes\n%s", tools, got, want)
	}
	// Tools a request's check takes are written with what it proved of their parameters.
	var verbatim uint64
	for i := range tools {
		proven, err := tools[i].validate(i)
		if err != nil {
			return
		}
		if proven {
			verbatim |= 1 << i
		}
	}
	if checked, err := appendTools([]byte(`,"tools":`), tools, verbatim); err != nil || !bytes.Equal(checked, got) {
		t.Fatalf("appendTools(%#v) with what the check proved wrote\n%s, %v\nwithout it\n%s", tools, checked, err, got)
	}
}

// TestAppendToolsAgreesWithEncodingJSON builds random tools, their parameters raw JSON (valid or
// not, compact or not, with characters encoding/json escapes), maps, structs, pointers, values
// that cannot be encoded, and holds appendTools to json.Marshal byte for byte and error for error.
func TestAppendToolsAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(20261129, 4))
	texts := []string{"", "weather", "get_time-2", "<b>&amp;</b>", "quote \" and \\", "é日本🙂", "\u2028", "\xff bad", "\n\t\b\f\x00\x7f"}
	kinds := []string{"", "function", "<x>"}
	for range 5000 {
		tools := make([]Tool, 1+r.IntN(3))
		for i := range tools {
			tools[i] = Tool{Type: kinds[r.IntN(len(kinds))], Function: FunctionDefinition{
				Name: texts[r.IntN(len(texts))], Description: texts[r.IntN(len(texts))], Parameters: randomParameters(r),
			}}
			if r.IntN(3) == 0 {
				tools[i].Function.Strict = Ptr(r.IntN(2) == 0)
			}
		}
		checkToolsEncoding(t, tools)
	}
}

// FuzzAppendTools holds appendTools to json.Marshal on any name, description and raw parameters.
func FuzzAppendTools(f *testing.F) {
	f.Add("weather", "the weather", []byte(`{"type":"object","properties":{"city":{"type":"string"}}}`), byte(0))
	f.Add("<f>", "a & b", []byte("{ \"type\" : \"object\" }\n"), byte(1))
	f.Add("f", "", []byte(`{"d":"<\u2028>"}`), byte(2))
	f.Add("f", "\xff", []byte(`{"a":01}`), byte(3))
	f.Add("f", "d", []byte(nil), byte(4))
	f.Fuzz(func(t *testing.T, name, description string, params []byte, mode byte) {
		tool := Tool{Function: FunctionDefinition{Name: name, Description: description, Parameters: json.RawMessage(params)}}
		switch mode % 4 {
		case 1:
			tool.Function.Strict = Ptr(true)
		case 2:
			tool.Type = "function"
		case 3:
			tool.Function.Parameters = nil
		}
		checkToolsEncoding(t, []Tool{tool, {Function: FunctionDefinition{Name: "second", Parameters: json.RawMessage(params)}}})
	})
}

// TestChatSendsToolsAsEncodingJSONWrites sends tools whose schemas are raw JSON, compact or not,
// with characters encoding/json escapes, and a map: the body carries them as json.Marshal
// writes them. Parameters encoding/json refuses fail the call before anything is sent, with the
// error they always had.
func TestChatSendsToolsAsEncodingJSONWrites(t *testing.T) {
	t.Parallel()
	var (
		mu     sync.Mutex
		bodies [][]byte
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, body)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`))
	}))
	t.Cleanup(srv.Close)
	client := testClient(t, srv.URL)
	tools := []Tool{
		{Function: FunctionDefinition{Name: "compact", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}},
		{Function: FunctionDefinition{Name: "spaced", Description: "<a & b>", Parameters: json.RawMessage("{ \"type\": \"object\",\n \"description\": \"<\\u00e9>\u2028\" }")}},
		{Type: "function", Function: FunctionDefinition{Name: "mapped", Parameters: map[string]any{"type": "object", "title": "x&y"}, Strict: Ptr(true)}},
	}
	req := ChatRequest{Model: "m", Messages: []Message{UserMessage("hi")}, Tools: tools}
	if _, err := client.Chat.Create(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	sentBodies := func() [][]byte {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(bodies)
	}
	var sent map[string]json.RawMessage
	if err := json.Unmarshal(sentBodies()[0], &sent); err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(tools)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(sent["tools"], want) {
		t.Errorf("tools sent as\n%s\nencoding/json writes\n%s", sent["tools"], want)
	}

	bad := json.RawMessage(`{"type":"object",}`)
	_, marshalErr := json.Marshal(bad)
	req.Tools = []Tool{tools[0], {Function: FunctionDefinition{Name: "bad", Parameters: bad}}}
	_, err = client.Chat.Create(context.Background(), req)
	var invalidErr *ValidationError
	if !errors.As(err, &invalidErr) || invalidErr.Field != "Tools[1].Function.Parameters" ||
		!strings.HasSuffix(err.Error(), "cannot be encoded as JSON: "+marshalErr.Error()) {
		t.Errorf("invalid parameters: error %v, want a ValidationError of Tools[1].Function.Parameters ending with %q", err, marshalErr)
	}
	if n := len(sentBodies()); n != 1 {
		t.Errorf("%d requests sent, want 1: invalid parameters must fail before sending", n)
	}
}

// TestToolsCostNoAllocation checks and writes a request whose tools' schemas are compact raw JSON
// with as many allocations as the same request without tools: the schemas are copied, not encoded
// again on each call.
func TestToolsCostNoAllocation(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","description":"` + strings.Repeat("a city name ", 200) + `"}},"required":["city"]}`)
	bare := ChatRequest{Model: "m", Messages: []Message{UserMessage("hi")}}
	withTools := bare
	withTools.Tools = []Tool{
		{Function: FunctionDefinition{Name: "weather", Description: "the weather in a city", Parameters: schema}},
		{Function: FunctionDefinition{Name: "time", Parameters: schema}},
	}
	c := &config{}
	allocs := func(req ChatRequest) float64 {
		return testing.AllocsPerRun(100, func() {
			if _, err := c.encodeChat(&req, false); err != nil {
				t.Fatal(err)
			}
		})
	}
	if got, want := allocs(withTools), allocs(bare); got != want {
		t.Errorf("a request with tools allocates %v times, without them %v", got, want)
	}
}
