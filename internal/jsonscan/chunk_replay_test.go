package jsonscan

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The template's proof: a stream's chunks mostly share their layout and differ in their strings, so
// the tests here make runs of chunks like that, with now and then a string that must be declined
// or a change outside the strings, and hold the decoder that replays its template to a fresh
// decoder and to encoding/json.

// otherStrings are string values a chunk may take in place of another: plain, escaped, empty,
// long enough for the eight-byte search, and invalid ones (lone surrogate, invalid UTF-8, a raw
// control byte) that the decoder must decline.
var otherStrings = []string{
	`""`, `"a"`, `" word12"`, `"chatcmpl-8f3a9c2b"`, `"with \"quotes\" and \\ slashes"`, `"\u00e9t\u00e9 🙂"`,
	`"a somewhat longer piece of text, past eight bytes at a time"`, `"\ud83d\ude42"`, `"\ud800"`, "\"\xff\"",
	"\"tab\there\"", `"\/\b\f\n\r\t"`, `"{\"k\":1}"`,
}

// varyStrings returns text with some of its string values (not its keys) replaced by others.
func varyStrings(rng *rand.Rand, text []byte) []byte {
	var out []byte
	for i := 0; i < len(text); {
		if text[i] != '"' {
			out = append(out, text[i])
			i++
			continue
		}
		end := i + 1
		for end < len(text) && text[end] != '"' {
			if text[end] == '\\' {
				end++
			}
			end++
		}
		end = min(end+1, len(text))
		next := end
		for next < len(text) && (text[next] == ' ' || text[next] == '\n') {
			next++
		}
		isKey := next < len(text) && text[next] == ':'
		if !isKey && rng.IntN(2) == 0 {
			out = append(out, otherStrings[rng.IntN(len(otherStrings))]...)
		} else {
			out = append(out, text[i:end]...)
		}
		i = end
	}
	return out
}

// vary returns the next chunk of a run: mostly the same layout with other strings, now and then a
// byte changed outside them, or a new layout.
func vary(rng *rand.Rand, g *chunkGen, last []byte) []byte {
	switch n := rng.IntN(10); {
	case n < 7:
		return varyStrings(rng, last)
	case n < 9 && len(last) > 0:
		out := append([]byte(nil), last...)
		out[rng.IntN(len(out))] = "0123456789 ,:{}[]\"nul"[rng.IntN(21)]
		return out
	}
	return append([]byte(nil), g.chunk()...)
}

// TestChunkDecoderReplay decodes runs of chunks that share their layout through one decoder, each
// chunk in the memory of the one before as a stream's buffer holds it, and checks every chunk
// against a fresh decoder (the same answer, accepted or declined alike) and encoding/json.
func TestChunkDecoderReplay(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(20261126, 5))
	replayed := 0
	for run := range 400 {
		var d ChunkDecoder
		g := chunkGen{rng: rng, odd: rng.IntN(4) == 0}
		last := append([]byte(nil), g.chunk()...)
		buf := make([]byte, 0, 1024)
		for range 2 + rng.IntN(12) {
			text := vary(rng, &g, last)
			kept, template := d.tmpl.ok, string(d.tmpl.text)
			buf = append(buf[:0], text...)
			got, ok := d.Decode(buf)
			var fresh ChunkDecoder
			want, wantOK := fresh.Decode(append([]byte(nil), text...))
			if ok != wantOK {
				t.Fatalf("run %d: %s: ok = %v, a fresh decoder's %v", run, text, ok, wantOK)
			}
			if !ok {
				continue
			}
			if kept && string(d.tmpl.text) == template && string(text) != template {
				replayed++ // read through the template, which decoding the slow way would have replaced
			}
			if diff := diffOf(flatten(want), flatten(got)); diff != "" {
				t.Fatalf("run %d: %s: differs from a fresh decoder (-fresh +kept):\n%s", run, text, diff)
			}
			if _, diff := checkChunk(new(ChunkDecoder), text); diff != "" {
				t.Fatalf("run %d: %s: differs from encoding/json (-json +decoder):\n%s", run, text, diff)
			}
			last = text
		}
	}
	// The generator's key order varies from run to run, and with it this count (about 300 to 420).
	if replayed < 150 {
		t.Fatalf("only %d chunks were read through the template; the test no longer reaches replay, or replay declines what it should take", replayed)
	}
}

// TestDecodeReplaysAStream checks that chunks that differ from the kept one only in their content or
// arguments, escaped or not, are all read through the template (which reading the slow way would
// replace), and read right.
func TestDecodeReplaysAStream(t *testing.T) {
	t.Parallel()
	for _, base := range []string{textChunk, toolChunk} {
		var d ChunkDecoder
		var kept string
		for i := range 40 {
			piece := fmt.Sprintf(" w%d", i)
			if i%5 == 4 {
				piece = `.\n\"q\"`
			}
			text := strings.Replace(strings.Replace(base, " word123", piece, 1), `\"days\":[{\"day\":3,`, piece, 1)
			got, ok := d.Decode([]byte(text))
			var fresh ChunkDecoder
			want, _ := fresh.Decode([]byte(text))
			if !ok {
				t.Fatalf("%s: declined", text)
			}
			if diff := diffOf(flatten(want), flatten(got)); diff != "" {
				t.Fatalf("%s: differs from a fresh decoder (-fresh +kept):\n%s", text, diff)
			}
			switch {
			case i == 1:
				kept = string(d.tmpl.text)
			case i > 1 && string(d.tmpl.text) != kept:
				t.Fatalf("chunk %d, %s: read the slow way, not through the template", i, text)
			}
		}
	}
}

// TestChunkDecoderStamp checks what Stamp tells a caller: a replayed chunk's unchanged strings lie
// in the template text of the current generation, a string that differed lies elsewhere, and a
// template kept anew, in the same memory, is a new generation.
func TestChunkDecoderStamp(t *testing.T) {
	t.Parallel()
	var d ChunkDecoder
	chunk := func(id, content string) []byte {
		return []byte(`{"id":"` + id + `","model":"m","choices":[{"index":0,"delta":{"content":"` + content + `"}}]}`)
	}
	for _, data := range [][]byte{chunk("c1", "a"), chunk("c1", "b")} {
		if _, ok := d.Decode(data); !ok {
			t.Fatalf("declined %s", data)
		}
	}
	gen := d.Generation()
	c, ok := d.Decode(chunk("c1", "c"))
	if !ok {
		t.Fatal("declined the replayed chunk")
	}
	if got := d.Stamp(c.ID.B); gen == 0 || got != gen {
		t.Errorf("Stamp(id) = %d, want the generation %d", got, gen)
	}
	if got := d.Stamp(c.Choices[0].Delta.Content.B); got != 0 {
		t.Errorf("Stamp(content that differed) = %d, want 0", got)
	}
	// Another layout is kept as the template: a new generation, though its text reuses the memory.
	c, ok = d.Decode([]byte(`{"id":"c2","model":"m","choices":[{"index":0,"delta":{"role":"assistant"}}]}`))
	if !ok {
		t.Fatal("declined the chunk of another layout")
	}
	if next := d.Generation(); next == gen {
		t.Errorf("Generation() = %d after a new template, the same as before", next)
	}
	if got := d.Stamp(c.ID.B); got != d.Generation() {
		t.Errorf("Stamp(id) = %d, want the new generation %d", got, d.Generation())
	}
}
