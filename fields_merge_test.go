package infergate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/internal/sse"
)

// The fields a stream's deltas and tool-call fragments carry beyond what the SDK models merge
// across their fragments: strings joined, lists appended, objects merged key by key, and of
// anything else the last standing. The generator below draws the whole fields first, cuts them
// into fragments, and spreads the fragments over a stream's chunks.

// jvalue is a JSON value the generator draws: a string, a list, an object (keys in order) or a
// scalar's text.
type jvalue struct {
	kind   byte // '"', '[', '{', or 0 for a scalar
	text   string
	items  []jvalue
	keys   []string
	values []jvalue
}

func (v jvalue) json() string {
	switch v.kind {
	case '"':
		b, _ := json.Marshal(v.text)
		return string(b)
	case '[':
		parts := make([]string, len(v.items))
		for i, it := range v.items {
			parts[i] = it.json()
		}
		return "[" + strings.Join(parts, ",") + "]"
	case '{':
		parts := make([]string, len(v.keys))
		for i, k := range v.keys {
			key, _ := json.Marshal(k)
			parts[i] = string(key) + ":" + v.values[i].json()
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return v.text
}

var fieldScalars = []string{"0", "-1.5e+300", "12345678901234567890", "true", "false", "null", "3"}

func genValue(d dice, depth int) jvalue {
	switch n := d.intn(4); {
	case n == 0 || depth > 2:
		if chance(d, 50) {
			return jvalue{kind: '"', text: genText(d, 6)}
		}
		return jvalue{text: fieldScalars[d.intn(len(fieldScalars))]}
	case n == 1:
		v := jvalue{kind: '['}
		for range d.intn(4) {
			v.items = append(v.items, genValue(d, depth+1))
		}
		return v
	default:
		return genObject(d, depth+1, false)
	}
}

// genObject draws an object of distinct keys; at the top (a delta's fields) no value is null,
// which would leave the field out.
func genObject(d dice, depth int, top bool) jvalue {
	v := jvalue{kind: '{'}
	for i := range d.intn(4) {
		key := []string{"extra_content", "reasoning_details", "thought_signature", "x-vendor", "é\"<&>", "google"}[d.intn(6)] + fmt.Sprint(i)
		val := genValue(d, depth)
		for top && val.kind == 0 && val.text == "null" {
			val = genValue(d, depth)
		}
		v.keys, v.values = append(v.keys, key), append(v.values, val)
	}
	return v
}

// cut splits v into fragments at n places (nil where a place gets none), which merge back into v.
func cut(d dice, v jvalue, n int) []*jvalue {
	out := make([]*jvalue, n)
	places := func(k int) []int { // k distinct places, in order
		var ps []int
		for i := range n {
			if len(ps) < k && d.intn(n-i) < k-len(ps) {
				ps = append(ps, i)
			}
		}
		return ps
	}
	switch v.kind {
	case '"':
		pieces := splitText(d, v.text)
		if len(pieces) == 0 {
			pieces = []string{""}
		}
		pieces = mergeTail(pieces, n)
		for i, p := range places(len(pieces)) {
			out[p] = &jvalue{kind: '"', text: pieces[i]}
		}
	case '[':
		k := 1 + d.intn(n)
		ps := places(k)
		for i, p := range ps {
			lo, hi := i*len(v.items)/k, (i+1)*len(v.items)/k
			out[p] = &jvalue{kind: '[', items: v.items[lo:hi]}
		}
	case '{':
		for _, p := range places(1 + d.intn(n)) {
			out[p] = &jvalue{kind: '{'}
		}
		var objs []int
		for i, o := range out {
			if o != nil {
				objs = append(objs, i)
			}
		}
		for i, k := range v.keys {
			frags := cut(d, v.values[i], len(objs))
			for j, f := range frags {
				if f != nil {
					o := out[objs[j]]
					o.keys, o.values = append(o.keys, k), append(o.values, *f)
				}
			}
		}
	default: // a scalar: the last of its fragments stands, so earlier ones may be anything
		ps := places(1 + d.intn(n))
		for i, p := range ps {
			f := v
			if i < len(ps)-1 {
				f = jvalue{text: fieldScalars[d.intn(len(fieldScalars))]}
			}
			out[p] = &f
		}
	}
	return out
}

// mergeTail joins the last pieces so that there are at most n.
func mergeTail(pieces []string, n int) []string {
	if len(pieces) <= n {
		return pieces
	}
	return append(pieces[:n-1], strings.Join(pieces[n-1:], ""))
}

// fieldStream is a generated stream and the fields its one message and one tool call add up to.
type fieldStream struct {
	body             string
	message, toolArg jvalue // the whole fields of the message and of the call
}

// genFieldStream spreads the message's and the call's fields over 1 to 6 chunks, with content and
// the call's arguments beside them.
func genFieldStream(d dice) fieldStream {
	g := fieldStream{message: genObject(d, 0, true), toolArg: genObject(d, 0, true)}
	n := 1 + d.intn(6)
	msgFrags, callFrags := cut(d, g.message, n), cut(d, g.toolArg, n)
	var b strings.Builder
	for i := range n {
		delta := map[string]any{"content": fmt.Sprint("w", i)}
		if i == 0 {
			delta["role"] = "assistant"
		}
		fn := map[string]any{"arguments": ""}
		call := map[string]any{"index": 0, "function": fn}
		if i == 0 {
			call["id"], call["type"], fn["name"], fn["arguments"] = "call_1", "function", "f", "{"
		}
		if i == n-1 {
			fn["arguments"] = fn["arguments"].(string) + "}"
		}
		chunk := `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` +
			withRaw(delta, msgFrags[i], `"tool_calls":[`+withRaw(call, callFrags[i], "")+`]`) + `}]}`
		b.WriteString("data: " + chunk + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	g.body = b.String()
	return g
}

// withRaw renders fields with a fragment's keys (its own text) and more after them.
func withRaw(fields map[string]any, frag *jvalue, more string) string {
	b, _ := json.Marshal(fields)
	s := string(b[:len(b)-1])
	if frag != nil && len(frag.keys) > 0 {
		s += "," + strings.TrimPrefix(frag.json(), "{")
		s = s[:len(s)-1]
	}
	if more != "" {
		s += "," + more
	}
	return s + "}"
}

// sameJSON compares two JSON texts as values, numbers by their text.
func sameJSON(a, b string) bool {
	read := func(s string) (any, bool) {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var v any
		return v, dec.Decode(&v) == nil
	}
	x, ok1 := read(a)
	y, ok2 := read(b)
	return ok1 && ok2 && reflect.DeepEqual(x, y)
}

// checkFields compares what a message and its call carry with the truth.
func checkFields(m infergate.Message, g fieldStream) string {
	if len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Arguments != "{}" {
		return fmt.Sprintf("tool calls %+v", m.ToolCalls)
	}
	for _, c := range []struct {
		name  string
		got   infergate.RawFields
		truth jvalue
	}{{"message", m.Extra, g.message}, {"call", m.ToolCalls[0].Extra, g.toolArg}} {
		got, err := c.got.MarshalJSON()
		if len(c.truth.keys) == 0 {
			if c.got != nil {
				return fmt.Sprintf("%s: Extra %s, want none", c.name, got)
			}
			continue
		}
		if err != nil || !sameJSON(string(got), c.truth.json()) {
			return fmt.Sprintf("%s: Extra %s (%v), want %s", c.name, got, err, c.truth.json())
		}
	}
	// What goes back is the same.
	body, err := json.Marshal(m)
	var back infergate.Message
	if err != nil || json.Unmarshal(body, &back) != nil || len(back.ToolCalls) != 1 ||
		!sameFields(back.Extra, m.Extra) || !sameFields(back.ToolCalls[0].Extra, m.ToolCalls[0].Extra) {
		return fmt.Sprintf("sent as %s (%v), read back as %+v", body, err, back)
	}
	return ""
}

func sameFields(a, b infergate.RawFields) bool {
	x, err1 := a.MarshalJSON()
	y, err2 := b.MarshalJSON()
	return err1 == nil && err2 == nil && (len(a) == 0) == (len(b) == 0) && (len(a) == 0 || sameJSON(string(x), string(y)))
}

// TestStreamFieldsMerge reads random streams whose deltas and tool-call fragments carry fields in
// fragments, through Chat.Stream (the fast decoder) and through json.Unmarshal and a
// ChatAccumulator (encoding/json), and checks that the fragments merge to the whole, that the two
// decoders agree on every chunk, and that the message sends the merged fields back.
func TestStreamFieldsMerge(t *testing.T) {
	t.Parallel()
	hc, next := pieceServer(t)
	client := testClient(t, "https://gw.test", infergate.WithHTTPClient(hc))
	rng := rand.New(rand.NewPCG(*propertySeed, 41))
	for i := range infergate.Scaled(500) {
		g := genFieldStream(randDice{rng})
		if msg := checkFieldStream(client, next, g, rng.Uint64()); msg != "" {
			t.Fatalf("case %d (seed %d): %s\nstream:\n%s", i, *propertySeed, msg, g.body)
		}
	}
}

func checkFieldStream(client *infergate.Client, next func(string, uint64), g fieldStream, seed uint64) string {
	next(g.body, seed)
	stream, err := client.Chat.Stream(context.Background(), hello())
	if err != nil {
		return fmt.Sprintf("Stream: %v", err)
	}
	defer stream.Close()
	for stream.Next() {
	}
	if err := stream.Err(); err != nil {
		return fmt.Sprintf("Err: %v", err)
	}
	if msg := checkFields(stream.Completion().Message(), g); msg != "" {
		return "Chat.Stream: " + msg
	}
	var acc infergate.ChatAccumulator
	var d infergate.ChunkDecoders
	dec := sse.NewDecoder(strings.NewReader(g.body), 0)
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil || string(ev.Data) == "[DONE]" {
			continue
		}
		fast, _ := d.Fast(ev.Data)
		if diff := cmp.Diff(d.JSON(ev.Data), fast); diff != "" {
			return fmt.Sprintf("%s: the fast decoder differs from encoding/json (-json +fast):\n%s", ev.Data, diff)
		}
		var chunk infergate.ChatCompletionChunk
		if err := json.Unmarshal(ev.Data, &chunk); err != nil {
			return fmt.Sprintf("json.Unmarshal(%s): %v", ev.Data, err)
		}
		acc.Add(chunk)
	}
	if msg := checkFields(acc.Completion().Message(), g); msg != "" {
		return "ChatAccumulator: " + msg
	}
	return ""
}

// FuzzStreamFields drives the fields' generator from the fuzzer's bytes.
func FuzzStreamFields(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{5, 3, 3, 1, 0, 2, 9, 7, 1, 1, 3, 3, 3, 2, 200, 17, 4, 4, 4})
	hc, next := pieceServer(f)
	client := testClient(f, "https://gw.test", infergate.WithHTTPClient(hc))
	f.Fuzz(func(t *testing.T, input []byte) {
		g := genFieldStream(&byteDice{b: input})
		if msg := checkFieldStream(client, next, g, uint64(len(input))); msg != "" {
			t.Fatalf("%s\nstream:\n%s", msg, g.body)
		}
	})
}
