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

// TestDecodeKeepsNoTemplateWithFields checks that a chunk whose fields go over raw is read right
// between chunks read through a template, from the same reused buffer, and is never kept as one:
// its fields alias the buffer, which the next chunk overwrites.
func TestDecodeKeepsNoTemplateWithFields(t *testing.T) {
	t.Parallel()
	vendor := strings.Replace(textChunk, `"delta":{`, `"delta":{"reasoning_details":[{"text":"a\u00e9"}],`, 1)
	call := strings.Replace(toolChunk, `"index":0,"function"`, `"index":0,"extra_content":{"google":{"thought_signature":"c2ln"}},"function"`, 1)
	var d ChunkDecoder
	buf := make([]byte, 0, 512)
	for i, text := range []string{textChunk, textChunk, vendor, vendor, textChunk, call, textChunk, textChunk, call} {
		buf = append(buf[:0], text...)
		got, ok := d.Decode(buf)
		if !ok {
			t.Fatalf("chunk %d declined: %s", i, text)
		}
		fields := strings.Contains(text, "reasoning_details") || strings.Contains(text, "extra_content")
		if fields && d.tmpl.ok {
			t.Fatalf("chunk %d, whose fields alias the buffer, was kept as the template", i)
		}
		flat := flatten(got)
		var fresh ChunkDecoder
		want, _ := fresh.Decode([]byte(text))
		if diff := diffOf(flatten(want), flat); diff != "" {
			t.Fatalf("chunk %d: differs from a fresh decoder (-fresh +kept):\n%s", i, diff)
		}
		delta := flat.Choices[0].Delta
		n := len(delta.Extra)
		for _, c := range delta.ToolCalls {
			n += len(c.Extra)
		}
		if fields != (n > 0) {
			t.Fatalf("chunk %d: %d fields went over", i, n/2)
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
