package jsonscan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// The ChunkDecoder's proof: what it accepts, encoding/json reads the same way into plain types
// (refChunk), and the usual shapes are accepted. Chunks are compared in a flat form that both sides
// are turned into.

type flatChunk struct {
	ID, Object, Model, SystemFingerprint *string
	Created                              int64
	Choices                              []flatChoice
	Usage, UsageFromProvider             string // compact JSON; "" when absent or null
	UsageFromConsumer                    string
}

type flatChoice struct {
	Index        int
	Delta        flatDelta
	Message      *flatDelta
	FinishReason *string
	Logprobs     string
}

type flatDelta struct {
	Role, Content                        *string
	ReasoningContent, Reasoning, Refusal string
	ToolCalls                            []flatCall
	Extra                                []string // key, then compact value, of each field handed over
}

type flatCall struct {
	Index          int
	HasIndex       bool
	ID, Type, Name *string
	Arguments      string
	Extra          []string
}

// flatten copies a decoded chunk, which is only valid until the next Decode.
func flatten(c *Chunk) flatChunk {
	out := flatChunk{ID: strOf(c.ID), Object: strOf(c.Object), Model: strOf(c.Model), SystemFingerprint: strOf(c.SystemFingerprint),
		Created: c.Created, Usage: compactRaw(c.Usage), UsageFromProvider: compactRaw(c.UsageFromProvider), UsageFromConsumer: compactRaw(c.UsageFromConsumer)}
	for _, ch := range c.Choices {
		fc := flatChoice{Index: ch.Index, Delta: flattenDelta(&ch.Delta), FinishReason: strOf(ch.FinishReason), Logprobs: compactRaw(ch.Logprobs)}
		if ch.HasMessage {
			m := flattenDelta(&ch.Message)
			fc.Message = &m
		}
		out.Choices = append(out.Choices, fc)
	}
	return out
}

func flattenDelta(d *Delta) flatDelta {
	out := flatDelta{Role: strOf(d.Role), Content: strOf(d.Content),
		ReasoningContent: string(d.ReasoningContent), Reasoning: string(d.Reasoning), Refusal: string(d.Refusal),
		Extra: flattenFields(d.Extra)}
	for _, t := range d.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, flatCall{Index: t.Index, HasIndex: t.HasIndex, ID: strOf(t.ID), Type: strOf(t.Type),
			Name: strOf(t.Name), Arguments: string(t.Arguments), Extra: flattenFields(t.Extra)})
	}
	return out
}

func flattenFields(fields []Field) []string {
	var out []string
	for _, f := range fields {
		out = append(out, string(f.Key), compactValue(f.Value))
	}
	return out
}

// compactValue is the compact text of a JSON value, null included.
func compactValue(raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return "invalid: " + err.Error()
	}
	return b.String()
}

// refFields is what encoding/json's decoder reads of the object b's keys other than known, in
// order: the reference of the fields a decoder hands over.
func refFields(b []byte, known []string) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, err
	}
	var out []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		if key := tok.(string); !slices.Contains(known, key) {
			out = append(out, key, compactValue(value))
		}
	}
	return out, nil
}

func strOf(s Str) *string {
	if !s.Set {
		return nil
	}
	v := string(s.B)
	return &v
}

// compactRaw is the compact text of a raw JSON value; "" for none or null.
func compactRaw(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil || b.String() == "null" {
		return ""
	}
	return b.String()
}

// refChunk is the chunk as encoding/json reads it into plain types.
type refChunk struct {
	ID                *string         `json:"id"`
	Object            *string         `json:"object"`
	Created           *int64          `json:"created"`
	Model             *string         `json:"model"`
	SystemFingerprint *string         `json:"system_fingerprint"`
	Choices           []refChoice     `json:"choices"`
	Usage             json.RawMessage `json:"usage"`
	UsageFromProvider json.RawMessage `json:"usage_from_provider"`
	UsageFromConsumer json.RawMessage `json:"usage_from_consumer"`
}

type refChoice struct {
	Index        *int            `json:"index"`
	Delta        *refDelta       `json:"delta"`
	Message      *refDelta       `json:"message"`
	FinishReason *string         `json:"finish_reason"`
	Logprobs     json.RawMessage `json:"logprobs"`
}

type refDelta struct {
	Role             *string   `json:"role"`
	Content          *string   `json:"content"`
	ReasoningContent *string   `json:"reasoning_content"`
	Reasoning        *string   `json:"reasoning"`
	Refusal          *string   `json:"refusal"`
	ToolCalls        []refCall `json:"tool_calls"`
	extra            []string
}

func (d *refDelta) UnmarshalJSON(b []byte) error {
	type plain refDelta
	if err := json.Unmarshal(b, (*plain)(d)); err != nil {
		return err
	}
	var err error
	d.extra, err = refFields(b, deltaKeys)
	return err
}

type refCall struct {
	Index    *int    `json:"index"`
	ID       *string `json:"id"`
	Type     *string `json:"type"`
	Function *struct {
		Name      *string `json:"name"`
		Arguments *string `json:"arguments"`
	} `json:"function"`
	extra []string
}

func (c *refCall) UnmarshalJSON(b []byte) error {
	type plain refCall
	if err := json.Unmarshal(b, (*plain)(c)); err != nil {
		return err
	}
	var err error
	c.extra, err = refFields(b, toolCallKeys)
	return err
}

func (r *refChunk) flat() flatChunk {
	out := flatChunk{ID: r.ID, Object: r.Object, Model: r.Model, SystemFingerprint: r.SystemFingerprint, Created: deref(r.Created),
		Usage: compactRaw(r.Usage), UsageFromProvider: compactRaw(r.UsageFromProvider), UsageFromConsumer: compactRaw(r.UsageFromConsumer)}
	for _, ch := range r.Choices {
		fc := flatChoice{Index: deref(ch.Index), FinishReason: ch.FinishReason, Logprobs: compactRaw(ch.Logprobs)}
		if ch.Delta != nil {
			fc.Delta = ch.Delta.flat()
		}
		if ch.Message != nil {
			m := ch.Message.flat()
			fc.Message = &m
		}
		out.Choices = append(out.Choices, fc)
	}
	return out
}

func (d *refDelta) flat() flatDelta {
	out := flatDelta{Role: d.Role, Content: d.Content, ReasoningContent: deref(d.ReasoningContent), Reasoning: deref(d.Reasoning), Refusal: deref(d.Refusal),
		Extra: d.extra}
	for _, t := range d.ToolCalls {
		fc := flatCall{Index: deref(t.Index), HasIndex: t.Index != nil, ID: t.ID, Type: t.Type, Extra: t.extra}
		if t.Function != nil {
			fc.Name, fc.Arguments = t.Function.Name, deref(t.Function.Arguments)
		}
		out.ToolCalls = append(out.ToolCalls, fc)
	}
	return out
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// checkChunk decodes data with d and, when d accepts it, with encoding/json, and reports how they
// differ; declined is true when d left the text to encoding/json.
func checkChunk(d *ChunkDecoder, data []byte) (declined bool, diff string) {
	got, ok := d.Decode(data)
	if !ok {
		return true, ""
	}
	fast := flatten(got)
	var ref refChunk
	if err := json.Unmarshal(data, &ref); err != nil {
		return false, fmt.Sprintf("accepted, but encoding/json refuses it: %v", err)
	}
	return false, diffOf(ref.flat(), fast)
}

// chunkShapes reads the chunks of testdata/chunks/name.txt, one a line.
func chunkShapes(t testing.TB, name string) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/chunks/" + name + ".txt")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestChunkDecoderShapes checks which shapes the decoder takes (fast.txt: the shapes of real
// streams; slow.txt: rare shapes, type mismatches and malformed events, which it leaves to
// encoding/json), and that each one it takes reads as encoding/json reads it.
func TestChunkDecoderShapes(t *testing.T) {
	t.Parallel()
	var cases []decodeCase
	for _, file := range []string{"fast", "slow"} {
		for _, shape := range chunkShapes(t, file) {
			cases = append(cases, decodeCase{shape, file == "slow"})
		}
	}
	checkCases(t, func(b []byte) (bool, string) { return checkChunk(new(ChunkDecoder), b) }, cases)
}

// TestChunkDecoderProperty decodes random chunks, one decoder for each run of them as in a stream,
// and holds what it accepts to encoding/json; chunks of only the expected types must be accepted.
func TestChunkDecoderProperty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(20261124, 3))
	for run := range 300 {
		var d ChunkDecoder
		for range 1 + rng.IntN(8) {
			g := chunkGen{rng: rng, odd: rng.IntN(3) == 0}
			data := g.chunk()
			declined, diff := checkChunk(&d, data)
			if diff != "" {
				t.Fatalf("run %d: %s: differs from encoding/json (-json +decoder):\n%s", run, data, diff)
			}
			if declined && !g.oddUsed {
				t.Fatalf("run %d: declined an ordinary chunk: %s", run, data)
			}
		}
	}
}

// chunkGen writes random chunks: every key the decoder reads in random order, unknown keys, text
// full of escapes, and, when odd is set, now and then a value of the wrong type.
type chunkGen struct {
	rng     *rand.Rand
	odd     bool
	oddUsed bool
	b       []byte
}

var genTexts = []string{"", "a", "Paris", `\"`, `\\`, `\n`, `\u00e9`, "é", "日本", `\ud83d\ude42`, "🙂", `\/`, `\t`, "<b>&", `{\"k\":1}`}

func (g *chunkGen) chunk() []byte {
	g.b = g.b[:0]
	g.object(map[string]func(){
		"id": g.str, "object": g.str, "model": g.str, "system_fingerprint": g.str,
		"created": func() { g.num(1 << 40) },
		"choices": func() { g.list(3, g.choice) },
		"usage":   g.any, "usage_from_provider": g.any, "usage_from_consumer": g.any,
		"x_vendor": g.any,
	})
	return g.b
}

func (g *chunkGen) choice() {
	g.object(map[string]func(){
		"index": func() { g.num(4) }, "delta": func() { g.objectOrNull(g.deltaFields(), true) },
		"message": func() { g.objectOrNull(g.deltaFields(), true) }, "finish_reason": g.str, "logprobs": g.any, "content_filter": g.any,
	})
}

func (g *chunkGen) deltaFields() map[string]func() {
	return map[string]func(){
		"role": g.str, "content": g.str, "reasoning_content": g.str, "reasoning": g.str, "refusal": g.str,
		"tool_calls": func() { g.list(3, g.call) }, "reasoning_details": g.any, "x-vendor": g.any,
	}
}

func (g *chunkGen) call() {
	g.object(map[string]func(){
		"index": func() { g.num(4) }, "id": g.str, "type": g.str, "extra_content": g.any,
		"function": func() { g.objectOrNull(map[string]func(){"name": g.str, "arguments": g.str}, true) },
	})
}

// object writes an object with a random subset of fields, in random order, or, where the decoder
// takes one, null.
func (g *chunkGen) object(fields map[string]func()) { g.objectOrNull(fields, false) }

func (g *chunkGen) objectOrNull(fields map[string]func(), nullable bool) {
	if nullable && g.rng.IntN(12) == 0 {
		g.b = append(g.b, "null"...)
		return
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	g.rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	g.b = append(g.b, '{')
	n := 0
	for _, k := range keys {
		if g.rng.IntN(3) == 0 {
			continue
		}
		if n > 0 {
			g.b = append(g.b, ',')
		}
		n++
		g.b = append(g.b, '"')
		g.b = append(g.b, k...)
		g.b = append(g.b, `":`...)
		if g.odd && g.rng.IntN(15) == 0 {
			g.oddUsed = true
			g.wrong()
			continue
		}
		fields[k]()
	}
	g.b = append(g.b, '}')
}

func (g *chunkGen) list(maxLen int, elem func()) {
	g.b = append(g.b, '[')
	for i := range g.rng.IntN(maxLen + 1) {
		if i > 0 {
			g.b = append(g.b, ',')
		}
		elem()
	}
	g.b = append(g.b, ']')
}

func (g *chunkGen) str() {
	if g.rng.IntN(8) == 0 {
		g.b = append(g.b, "null"...)
		return
	}
	g.b = append(g.b, '"')
	for range g.rng.IntN(4) {
		g.b = append(g.b, genTexts[g.rng.IntN(len(genTexts))]...)
	}
	g.b = append(g.b, '"')
}

func (g *chunkGen) num(limit int64) {
	if g.rng.IntN(8) == 0 {
		g.b = append(g.b, "null"...)
		return
	}
	g.b = fmt.Append(g.b, g.rng.Int64N(limit))
}

// any writes any JSON value, as the raw fields hold.
func (g *chunkGen) any() {
	switch g.rng.IntN(6) {
	case 0:
		g.b = append(g.b, "null"...)
	case 1:
		g.str()
	case 2:
		g.b = append(g.b, `-2.5e+3`...)
	case 3:
		g.list(2, g.any)
	case 4:
		g.objectOrNull(map[string]func(){"prompt_tokens": func() { g.num(100) }, "nested": g.any}, true)
	default:
		g.b = append(g.b, "true"...)
	}
}

// wrong writes a value of a type no field of the decoder takes everywhere: the decoder must then
// decline, or read it as encoding/json does.
func (g *chunkGen) wrong() {
	switch g.rng.IntN(5) {
	case 0:
		g.b = append(g.b, "1.5"...)
	case 1:
		g.b = append(g.b, `"7"`...)
	case 2:
		g.b = append(g.b, "[1]"...)
	case 3:
		g.b = append(g.b, `{"a":1}`...)
	default:
		g.b = append(g.b, "-1"...)
	}
}

// FuzzChunkDecoder is the decoder's differential fuzz target: each line of the input is one
// event's data, decoded in turn by one decoder, as a stream reuses it (the kept template included),
// and by encoding/json. Whatever the decoder accepts, encoding/json must read the same way.
func FuzzChunkDecoder(f *testing.F) {
	shapes := append(chunkShapes(f, "fast"), chunkShapes(f, "slow")...)
	for _, shape := range shapes {
		f.Add([]byte(shape))
	}
	f.Add([]byte(strings.Join(chunkShapes(f, "fast"), "\n")))
	rng := rand.New(rand.NewPCG(11, 7))
	for range 64 {
		g := chunkGen{rng: rng}
		var lines [][]byte
		for range 1 + rng.IntN(6) {
			lines = append(lines, bytes.Clone(g.chunk()))
		}
		f.Add(bytes.Join(lines, []byte("\n")))
	}
	for range 32 { // runs of one layout with other strings, which the decoder replays
		g := chunkGen{rng: rng}
		lines := [][]byte{bytes.Clone(g.chunk())}
		for range 4 {
			lines = append(lines, varyStrings(rng, lines[len(lines)-1]))
		}
		f.Add(bytes.Join(lines, []byte("\n")))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		var d ChunkDecoder
		for _, line := range bytes.Split(input, []byte("\n")) {
			if _, diff := checkChunk(&d, line); diff != "" {
				t.Fatalf("%q: differs from encoding/json (-json +decoder):\n%s", line, diff)
			}
		}
	})
}
