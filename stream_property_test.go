package infergate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/internal/sse"
)

var (
	propertySeed  = flag.Uint64("stream.seed", 20261122, "seed of the random streams of TestStreamProperty")
	propertyCases = flag.Int("stream.cases", 2000, "how many random streams TestStreamProperty checks")
)

// TestStreamProperty reads thousands of random valid streams, each read in random small pieces, and checks every answer against the truth the generator drew: content,
// reasoning, finish reason, tool calls (id, name, JSON-equal arguments) and logprobs per choice,
// usage details, and that the cleaned deltas concatenate to the same answer, placeholder "{}"
// arguments included, also on streams where no chunk carries a finish_reason; the same events folded
// with a ChatAccumulator of one's own (Add, then Flush) give the same answer and deltas. Each
// stream is read twice, the second time reusing its chunks' lists as a typed answer's does. Run more
// with -stream.cases, another sequence with -stream.seed.
func TestStreamProperty(t *testing.T) {
	t.Parallel()
	cases := infergate.Scaled(*propertyCases)
	if testing.Short() {
		cases = min(cases, 200)
	}
	hc, next := pieceServer(t)
	client := testClient(t, "https://gw.test", infergate.WithHTTPClient(hc))
	rng := rand.New(rand.NewPCG(*propertySeed, 1))
	for i := range cases {
		g := genStreamBody(randDice{rng})
		seed := rng.Uint64()
		for _, reuse := range []bool{false, true} {
			next(g.body, seed)
			stream, err := client.Chat.Stream(context.Background(), hello())
			if err != nil {
				t.Fatalf("case %d: Stream: %v", i, err)
			}
			if reuse { // as a typed answer's stream: each chunk is read before the next overwrites it
				infergate.ReuseChunkLists(stream)
			}
			if msg := checkStream(stream, g); msg != "" {
				t.Fatalf("case %d (seed %d, lists reused %v): %s\nstream:\n%s", i, *propertySeed, reuse, msg, g.body)
			}
		}
		if msg := checkAccumulated(g); msg != "" {
			t.Fatalf("case %d (seed %d), folded with ChatAccumulator: %s\nstream:\n%s", i, *propertySeed, msg, g.body)
		}
	}
}

// checkAccumulated folds the stream's events as a proxy would, decoding each with json.Unmarshal
// into ChatAccumulator.Add and forwarding what Add returns, then what Flush gives back: the
// forwarded deltas and the completion must both be the truth's.
func checkAccumulated(g genStream) string {
	var acc infergate.ChatAccumulator
	byChoice := map[int]*folded{}
	forward := func(chunk infergate.ChatCompletionChunk) string { return foldChunk(byChoice, chunk) }
	dec := sse.NewDecoder(strings.NewReader(g.body), 0)
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			break
		}
		data := bytes.TrimSpace(ev.Data)
		if err != nil || ev.Kind != sse.Data || len(data) == 0 || string(data) == "[DONE]" {
			if err != nil {
				return fmt.Sprintf("reading the events: %v", err)
			}
			continue
		}
		var chunk infergate.ChatCompletionChunk
		if err := json.Unmarshal(data, &chunk); err != nil {
			return fmt.Sprintf("decoding %s: %v", data, err)
		}
		if msg := forward(acc.Add(chunk)); msg != "" {
			return msg
		}
	}
	if last, ok := acc.Flush(); ok {
		if msg := forward(last); msg != "" {
			return msg
		}
	}
	got := acc.Completion()
	if len(got.Choices) != len(g.choices) {
		return fmt.Sprintf("%d choices, want %d", len(got.Choices), len(g.choices))
	}
	for i, want := range g.choices {
		if msg := checkChoice(got.Choices[i], i, want); msg != "" {
			return msg
		}
		if msg := checkFolded(byChoice[i], got.Choices[i].Message, i); msg != "" {
			return msg
		}
	}
	return ""
}

// pieceServer answers each request with the body last given to next, handed out in random pieces
// of 1 to 64 bytes as network reads would, in memory: the property is about the decoding of
// pieces, and sockets would only slow it down.
func pieceServer(t testing.TB) (*http.Client, func(body string, seed uint64)) {
	var mu sync.Mutex
	var body string
	var seed uint64
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		b, rng := body, rand.New(rand.NewPCG(seed, 2))
		mu.Unlock()
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: &pieces{data: b, rng: rng}, Request: r}, nil
	})}
	return hc, func(b string, s uint64) {
		mu.Lock()
		body, seed = b, s
		mu.Unlock()
	}
}

// pieces reads its data in random pieces of 1 to 64 bytes.
type pieces struct {
	data string
	rng  *rand.Rand
}

func (p *pieces) Read(b []byte) (int, error) {
	if len(p.data) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.data[:min(1+p.rng.IntN(64), len(p.data))])
	p.data = p.data[n:]
	return n, nil
}

func (p *pieces) Close() error { return nil }

// folded is what a caller rebuilds by concatenating the cleaned deltas of one choice.
type folded struct {
	content, reasoning strings.Builder
	args               map[int]*strings.Builder
	ids, names         map[int]string
}

// foldChunk adds a cleaned chunk's deltas to what each choice's concatenated deltas give.
func foldChunk(byChoice map[int]*folded, chunk infergate.ChatCompletionChunk) string {
	for _, c := range chunk.Choices {
		f := byChoice[c.Index]
		if f == nil {
			f = &folded{args: map[int]*strings.Builder{}, ids: map[int]string{}, names: map[int]string{}}
			byChoice[c.Index] = f
		}
		f.content.WriteString(c.Delta.Content)
		f.reasoning.WriteString(c.Delta.Reasoning)
		for _, tc := range c.Delta.ToolCalls {
			if tc.Index < 0 {
				return fmt.Sprintf("a delta of choice %d has an unresolved tool-call index", c.Index)
			}
			if f.args[tc.Index] == nil {
				f.args[tc.Index] = &strings.Builder{}
			}
			f.args[tc.Index].WriteString(tc.Function.Arguments)
			f.ids[tc.Index] += tc.ID
			f.names[tc.Index] += tc.Function.Name
		}
	}
	return ""
}

// checkStream reads the stream to its end and returns what differs from the truth, or "".
func checkStream(stream *infergate.ChatStream, g genStream) string {
	defer stream.Close()
	byChoice := map[int]*folded{}
	for stream.Next() {
		if msg := foldChunk(byChoice, stream.Current()); msg != "" {
			return msg
		}
	}
	if err := stream.Err(); err != nil {
		return fmt.Sprintf("Err: %v", err)
	}
	if n := stream.SkippedCount(); n != 0 {
		return fmt.Sprintf("%d events skipped: %v", n, stream.Skipped())
	}
	got := stream.Completion()
	if len(got.Choices) != len(g.choices) {
		return fmt.Sprintf("%d choices, want %d", len(got.Choices), len(g.choices))
	}
	for i, want := range g.choices {
		if msg := checkChoice(got.Choices[i], i, want); msg != "" {
			return msg
		}
		if msg := checkFolded(byChoice[i], got.Choices[i].Message, i); msg != "" {
			return msg
		}
	}
	if g.usage {
		u := got.Usage
		if u == nil || u.TotalTokens != 16 || u.PromptTokensDetails == nil || u.PromptTokensDetails.CachedTokens != 3 ||
			u.CompletionTokensDetails == nil || u.CompletionTokensDetails.ReasoningTokens != 4 {
			return fmt.Sprintf("usage %+v lost the details", u)
		}
	}
	return ""
}

func checkChoice(c infergate.Choice, i int, want truthChoice) string {
	m := c.Message
	switch {
	case c.Index != i:
		return fmt.Sprintf("choice %d has index %d", i, c.Index)
	case m.Content != want.content:
		return fmt.Sprintf("choice %d content %q, want %q", i, m.Content, want.content)
	case m.Reasoning != want.reasoning:
		return fmt.Sprintf("choice %d reasoning %q, want %q", i, m.Reasoning, want.reasoning)
	case string(c.FinishReason) != want.finish:
		return fmt.Sprintf("choice %d finish %q, want %q", i, c.FinishReason, want.finish)
	case len(m.ToolCalls) != len(want.calls):
		return fmt.Sprintf("choice %d has %d tool calls, want %d: %+v", i, len(m.ToolCalls), len(want.calls), m.ToolCalls)
	}
	for j, wc := range want.calls {
		tc := m.ToolCalls[j]
		if tc.ID != wc.id || tc.Function.Name != wc.name || tc.Type != "function" || !jsonEqual(tc.Function.Arguments, wc.args) {
			return fmt.Sprintf("choice %d call %d = %+v, want %+v", i, j, tc, wc)
		}
	}
	var tokens []string
	if c.Logprobs != nil {
		for _, lp := range c.Logprobs.Content {
			tokens = append(tokens, lp.Token)
		}
	}
	if !reflect.DeepEqual(tokens, want.tokens) {
		return fmt.Sprintf("choice %d logprob tokens %q, want %q", i, tokens, want.tokens)
	}
	return ""
}

// checkFolded compares what concatenating the deltas gives with the completion.
func checkFolded(f *folded, m infergate.Message, i int) string {
	if f == nil {
		return fmt.Sprintf("choice %d never appeared in a chunk", i)
	}
	if f.content.String() != m.Content || f.reasoning.String() != m.Reasoning {
		return fmt.Sprintf("choice %d: deltas concatenate to %q/%q, completion has %q/%q", i, f.content.String(), f.reasoning.String(), m.Content, m.Reasoning)
	}
	for j, tc := range m.ToolCalls {
		b := f.args[j]
		if b == nil || b.String() != tc.Function.Arguments || f.ids[j] != tc.ID || f.names[j] != tc.Function.Name {
			return fmt.Sprintf("choice %d call %d: deltas concatenate to id %q name %q args %v, completion has %+v", i, j, f.ids[j], f.names[j], b, tc)
		}
	}
	return ""
}

func jsonEqual(a, b string) bool {
	if a == b { // the common case, without decoding both
		return json.Valid([]byte(a))
	}
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// FuzzStreamGenerated drives the stream generator from the fuzzer's bytes, so that coverage guides
// it towards odd shapes, and checks the answer against the truth. Bytes left over after generation
// corrupt the stream at chosen places: then only the absence of a panic and a clean end count.
func FuzzStreamGenerated(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 1, 0, 2, 7, 9, 4, 4, 4, 1, 200, 13, 77, 5, 5, 5, 5, 5})
	f.Add([]byte("interleaved parallel calls with escapes \\\" and choices"))
	hc, next := pieceServer(f)
	client := testClient(f, "https://gw.test", infergate.WithHTTPClient(hc))
	f.Fuzz(func(t *testing.T, input []byte) {
		d := &byteDice{b: input}
		g := genStreamBody(d)
		body, corrupted := corrupt(g.body, d.b)
		next(body, uint64(len(input)))
		stream, err := client.Chat.Stream(context.Background(), hello())
		if err != nil {
			if !corrupted {
				t.Fatalf("Stream: %v", err)
			}
			return
		}
		if len(input)%2 == 1 { // read as a typed answer's stream reads it
			infergate.ReuseChunkLists(stream)
		}
		if corrupted {
			for stream.Next() {
				_ = stream.Completion()
			}
			_ = stream.Completion()
			stream.Close()
			return
		}
		if msg := checkStream(stream, g); msg != "" {
			t.Fatalf("%s\nstream:\n%s", msg, g.body)
		}
		if msg := checkAccumulated(g); msg != "" {
			t.Fatalf("folded with ChatAccumulator: %s\nstream:\n%s", msg, g.body)
		}
	})
}

// corrupt applies up to 8 edits chosen by edits: each pair of bytes picks a place and a byte to
// overwrite or insert there.
func corrupt(body string, edits []byte) (string, bool) {
	if len(edits) < 2 || body == "" {
		return body, false
	}
	b := []byte(body)
	for i := 0; i+1 < len(edits) && i < 16; i += 2 {
		at := int(edits[i]) * len(b) / 256
		if edits[i+1]%2 == 0 {
			b[at] = edits[i+1]
		} else {
			b = append(b[:at], append([]byte{edits[i+1]}, b[at:]...)...)
		}
	}
	return string(b), true
}
