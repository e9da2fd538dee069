package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

// The chunks of the benchmarks: a content chunk and a tool-call fragment as providers send them.
const (
	textChunk = `{"id":"chatcmpl-8f3a9c2b","object":"chat.completion.chunk","created":1731000000,"model":"llama-3.3-70b","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":{"content":" word123"},"logprobs":null,"finish_reason":null}]}`
	toolChunk = `{"id":"chatcmpl-8f3a9c2b","object":"chat.completion.chunk","created":1731000000,"model":"llama-3.3-70b","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"days\":[{\"day\":3,"}}]},"logprobs":null,"finish_reason":null}]}`
)

// TestDecodeKeepsTemplate checks that the decoder keeps a template from the second chunk on, and
// that a chunk read through it decodes as a fresh decoder reads it, also one unlike the template.
func TestDecodeKeepsTemplate(t *testing.T) {
	t.Parallel()
	var d ChunkDecoder
	buf := make([]byte, 0, 512)
	for i, text := range []string{textChunk, textChunk, toolChunk, textChunk[:20] + "9" + textChunk[21:], `{"choices":[],"id":"x"}`, textChunk,
		strings.Replace(textChunk, "word123", `w\u00e9\"`, 1), strings.Replace(textChunk, "word123", "again", 1)} {
		buf = append(buf[:0], text...) // the same memory for every chunk, as a stream's buffer
		got, ok := d.Decode(buf)
		// The first chunk is not kept; a chunk whose lists grew (the tool call) is not either.
		if kept := d.tmpl.ok; kept != (i > 0 && i != 2) {
			t.Fatalf("chunk %d: template kept = %v", i, kept)
		}
		var fresh ChunkDecoder
		want, wantOK := fresh.Decode([]byte(text))
		if ok != wantOK {
			t.Fatalf("%s: ok = %v, a fresh decoder's %v", text, ok, wantOK)
		}
		if diff := diffOf(flatten(want), flatten(got)); ok && diff != "" {
			t.Fatalf("%s: differs from a fresh decoder (-fresh +kept):\n%s", text, diff)
		}
	}
}

func benchDecode(b *testing.B, text string) {
	data := []byte(text)
	var d ChunkDecoder
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for range b.N {
		if _, ok := d.Decode(data); !ok {
			b.Fatal("declined")
		}
	}
}

func BenchmarkDecodeText(b *testing.B) { benchDecode(b, textChunk) }
func BenchmarkDecodeTool(b *testing.B) { benchDecode(b, toolChunk) }

// BenchmarkDecodeTextNewOpening decodes chunks whose opening changes every time.
func BenchmarkDecodeTextNewOpening(b *testing.B) {
	data := [][]byte{[]byte(textChunk), []byte(strings.Replace(textChunk, "8f3a", "8f3b", 1))}
	var d ChunkDecoder
	b.SetBytes(int64(len(data[0])))
	b.ReportAllocs()
	for i := range b.N {
		if _, ok := d.Decode(data[i%2]); !ok {
			b.Fatal("declined")
		}
	}
}

// BenchmarkUnmarshalText is the encoding/json figure for the same chunk, into a lean struct.
func BenchmarkUnmarshalText(b *testing.B) {
	data := []byte(textChunk)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for range b.N {
		var c struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(data, &c); err != nil {
			b.Fatal(err)
		}
	}
}
