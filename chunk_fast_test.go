package infergate_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
)

// shapeHead opens the chunks of the shape tables.
const shapeHead = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1731000000,"model":"m","system_fingerprint":"fp","choices":[`

// fastShapes are chunks the fast decoder must take: the shapes of real streams.
var fastShapes = []string{
	shapeHead + `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
	shapeHead + `{"index":0,"delta":{"content":" word1"},"logprobs":null,"finish_reason":null}]}`,
	shapeHead + `{"index":0,"delta":{"content":".\n \"q\" \\ \/ \b\f\r\t \u00e9 \ud83d\ude42 é 日本 🙂"},"finish_reason":null}]}`,
	shapeHead + `{"index":0,"delta":{},"finish_reason":"stop"}]}`,
	shapeHead + `{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_7Xk2","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}`,
	shapeHead + `{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"location\":\"Par"}}]},"finish_reason":null}]}`,
	shapeHead + `{"index":0,"delta":{"tool_calls":[{"id":"","type":"","function":{"name":"f","arguments":"{}"}},{"index":1,"function":{"arguments":"1}"}}]}}]}`,
	shapeHead + `{"index":0,"delta":{"reasoning_content":"think","reasoning":"think"}},{"index":1,"delta":{"refusal":"no"}}]}`,
	shapeHead + `{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}`,
	shapeHead + `{"index":0,"delta":{"content":"Hi"},"logprobs":{"content":[{"token":"Hi","logprob":-0.5,"bytes":[72,105],"top_logprobs":[{"token":"Hey","logprob":-1.5,"bytes":null}]}]}}]}`,
	`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"prompt_tokens_details":{"cached_tokens":1},"completion_tokens_details":{"reasoning_tokens":2}},"usage_from_provider":null}`,
	`{"choices":[{"index":0,"delta":{"content":"A"},"x_vendor":{"a":[1,-2.5e+3,true,false,null,"s"]}}],"x_provider":"p1","error":null}`,
	`{ "choices" : [ { "index" : 2 , "delta" : { "content" : "spaced" } } ] , "created" : null , "id" : null }`,
	`{}`,
	`{"choices":null}`,
}

// slowShapes are chunks the fast decoder leaves to encoding/json: rare shapes, type mismatches,
// anything it cannot be sure to read as encoding/json does, and malformed events.
var slowShapes = []string{
	shapeHead + `{"index":0,"delta":{"content":[{"type":"text","text":"Hello"}]}}]}`,
	shapeHead + `{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"r3"}]}]}}]}`,
	shapeHead + `{"index":0,"delta":{"content":[{"type":"audio","data":"AAA"},{"type":"text","text":"!"}]},"finish_reason":"stop"}]}`,
	shapeHead + `{"index":0,"delta":{"content":{"type":"text","text":"single part"}}}]}`,
	shapeHead + `{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":{"city":"Paris"}}}]}}]}`,
	shapeHead + `{"index":0,"delta":{"content":42}}]}`,
	shapeHead + `{"index":"0","delta":{"content":"x"}}]}`,
	shapeHead + `{"index":1.5,"delta":{"content":"x"}}]}`,
	shapeHead + `{"index":0,"delta":{"tool_calls":[{"index":-1,"function":{"arguments":"x"}}]}}]}`,
	shapeHead + `{"index":0,"delta":{"content":"a","content":"b"}}]}`,
	shapeHead + `{"index":0,"Delta":{"content":"case"}}]}`,
	shapeHead + `{"index":0,"delta":{"reasoningcontent":"folded"}}]}`,
	shapeHead + `{"index":0,"delta":{"content":"\ud800 lone"}}]}`,
	shapeHead + "{\"index\":0,\"delta\":{\"content\":\"\xff\"}}]}",
	shapeHead + `{"index":0,"delta":{"content":"x"}}]} {"second":1}`,
	`{"error":{"message":"boom","status":500,"type":"server_error"}}`,
	`{"id":42,"created":"1","choices":[{"index":0,"delta":"text"}],"usage":{"prompt_tokens":"x"}}`,
	`{"created":1e3,"choices":[]}`,
	`{"choices":[{"index":01}]}`,
	`{"choices":[{"index":0,"delta":{"content":"x"}}]`,
	`{"choices":[{"index":0,"delta":{"content":"x"}},]}`,
	`{"a":tru}`,
}

// TestChunkFastPath checks which shapes take the fast path, and that each decodes as encoding/json
// decodes it.
func TestChunkFastPath(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		shapes   []string
		declined bool
	}{{fastShapes, false}, {slowShapes, true}} {
		for _, shape := range tt.shapes {
			var d infergate.ChunkDecoders
			got, declined := d.Fast([]byte(shape))
			if declined != tt.declined {
				t.Errorf("declined = %v, want %v, for %s", declined, tt.declined, shape)
			}
			if diff := cmp.Diff(d.JSON([]byte(shape)), got); diff != "" {
				t.Errorf("%s: fast path differs from encoding/json (-json +fast):\n%s", shape, diff)
			}
		}
	}
}

// TestChunkFastPathTakesGeneratedStreams checks that the fast path is the path of ordinary streams:
// every generated chunk without content parts or arguments sent as objects takes it.
func TestChunkFastPathTakesGeneratedStreams(t *testing.T) {
	t.Parallel()
	for seed := range uint64(infergate.Scaled(200)) {
		var d infergate.ChunkDecoders
		for _, data := range eventData(genStreamBody(randDice{rand.New(rand.NewPCG(seed, 7))}).body) {
			got, declined := d.Fast([]byte(data))
			if rare := strings.Contains(data, `"delta":{"content":[`); declined != rare {
				t.Fatalf("seed %d: declined = %v for %s", seed, declined, data)
			}
			if diff := cmp.Diff(d.JSON([]byte(data)), got); diff != "" {
				t.Fatalf("seed %d: %s: fast path differs from encoding/json (-json +fast):\n%s", seed, data, diff)
			}
		}
	}
}

// eventData returns the data of each event of a stream body that the generator wrote.
func eventData(body string) []string {
	var out []string
	for _, line := range strings.FieldsFunc(body, func(r rune) bool { return r == '\n' || r == '\r' }) {
		data, ok := strings.CutPrefix(line, "data:")
		if data = strings.TrimSpace(data); ok && data != "[DONE]" {
			out = append(out, data)
		}
	}
	return out
}

// FuzzChunkDecode is the differential fuzz target of the fast decoder: each line of the input is
// one event's data, decoded in turn by the fast path (falling back to encoding/json when it
// declines) and by encoding/json alone, each into buffers reused from event to event as a stream
// reuses them. Both must agree on whether the event is a chunk, and on the chunk.
func FuzzChunkDecode(f *testing.F) {
	for _, shape := range append(append([]string{}, fastShapes...), slowShapes...) {
		f.Add([]byte(shape))
	}
	text, _ := contentStream(3)
	tools, _ := toolStream(3)
	for _, body := range []string{string(text), string(tools)} {
		f.Add([]byte(strings.Join(eventData(body), "\n")))
	}
	for seed := range uint64(64) {
		g := genStreamBody(randDice{rand.New(rand.NewPCG(seed, 11))})
		f.Add([]byte(strings.Join(eventData(g.body), "\n")))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		var d infergate.ChunkDecoders
		for _, line := range bytes.Split(input, []byte("\n")) {
			data := bytes.TrimSpace(line)
			if len(data) == 0 || data[0] != '{' {
				continue // the stream skips these before decoding
			}
			got, _ := d.Fast(data)
			if diff := cmp.Diff(d.JSON(data), got); diff != "" {
				t.Fatalf("%q: fast path differs from encoding/json (-json +fast):\n%s", data, diff)
			}
		}
	})
}
