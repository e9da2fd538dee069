package jsonscan

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// The package's unsafe code has safe twins, which the purego build tag selects: view (a string
// viewing the texts' buffer; the twin copies), within (addresses compared as numbers; the twin
// compares them one by one) and copyRuns (a string's text copied through pointers; the twin
// indexes slices). The differential fuzz targets here feed both twins the same input and
// require the same result; built with the purego tag, both sides are the safe twin.

// FuzzCompletionTwins decodes each body with strings that view the buffer and with strings that
// copy it: the two completions must be equal.
func FuzzCompletionTwins(f *testing.F) {
	for _, seed := range completionSeeds {
		f.Add(seed)
	}
	f.Add(string(completionBody(2000)))
	f.Fuzz(func(t *testing.T, body string) {
		viewed, ok := decodeCompletion([]byte(body), newTexts(len(body)))
		copied, okCopied := decodeCompletion([]byte(body), copyingTexts(len(body)))
		if ok != okCopied || !reflect.DeepEqual(viewed, copied) {
			t.Fatalf("%q: viewed (ok %v) %+v, copied (ok %v) %+v", body, ok, viewed, okCopied, copied)
		}
	})
}

// FuzzStampTwins decodes each line of the input as an event of one stream, and asks within and
// withinSafe whether each string of the chunk, and each piece of the template text and of the
// event, lies in the template text: they must answer alike.
func FuzzStampTwins(f *testing.F) {
	fast := chunkShapes(f, "fast")
	f.Add([]byte(strings.Join(fast, "\n")), uint8(3))
	rng := rand.New(rand.NewPCG(5, 9))
	for range 16 { // runs of one layout with other strings, which the decoder replays
		g := chunkGen{rng: rng}
		lines := [][]byte{bytes.Clone(g.chunk())}
		for range 4 {
			lines = append(lines, varyStrings(rng, lines[len(lines)-1]))
		}
		f.Add(bytes.Join(lines, []byte("\n")), uint8(rng.IntN(16)))
	}
	f.Fuzz(func(t *testing.T, input []byte, width uint8) {
		if len(input) > 8<<10 {
			t.Skip("longer than a stream's usual events: each check costs the template's length")
		}
		var d ChunkDecoder
		for _, line := range bytes.Split(input, []byte("\n")) {
			c, ok := d.Decode(line)
			tmpl := d.tmpl.text
			check := func(what string, b []byte) {
				if got, want := within(tmpl, b), withinSafe(tmpl, b); got != want {
					t.Fatalf("%q: %s %q: within %v, withinSafe %v", line, what, b, got, want)
				}
			}
			if ok {
				for _, b := range chunkBytes(c) {
					check("a chunk's string", b)
				}
			}
			// Pieces at the first 512 places of each: withinSafe costs the template's length.
			n := int(width) + 1
			for i := range min(len(tmpl), 512) {
				check("template text", tmpl[i:min(i+n, len(tmpl))])
			}
			for i := range min(len(line), 512) {
				check("the event", line[i:min(i+n, len(line))])
			}
		}
	})
}

// chunkBytes lists the strings and raw values of c.
func chunkBytes(c *Chunk) [][]byte {
	out := [][]byte{c.ID.B, c.Object.B, c.Model.B, c.SystemFingerprint.B, c.Usage, c.UsageFromProvider, c.UsageFromConsumer}
	for _, ch := range c.Choices {
		out = append(out, ch.FinishReason.B, ch.Logprobs)
		for _, d := range []Delta{ch.Delta, ch.Message} {
			out = append(out, d.Role.B, d.Content.B, d.ReasoningContent, d.Reasoning, d.Refusal)
			for _, tc := range d.ToolCalls {
				out = append(out, tc.ID.B, tc.Type.B, tc.Name.B, tc.Arguments)
			}
		}
	}
	return out
}

// FuzzUnescapeTwins runs copyRuns and copyRunsSafe on the same bytes, from the same place, into
// two buffers filled alike: they must stop at the same place with the same lag and high bits,
// and leave the buffers alike, whatever the start, the lag and the buffer's length.
func FuzzUnescapeTwins(f *testing.F) {
	f.Add([]byte(`"{\"label\":\"record 1\",\"score\":0.33,\"tags\":[\"a\"]}"`), uint16(1), uint16(0), uint16(0))
	f.Add([]byte(`"abcdefgh\\\/\n\t\u00e9 é\x01 and the rest"`), uint16(1), uint16(1), uint16(3))
	f.Add([]byte(`"12345678\`), uint16(1), uint16(0), uint16(0))
	f.Add([]byte(`\"\"\"\"\"\"\"\"\"\"\"\"`), uint16(0), uint16(0), uint16(1))
	f.Fuzz(func(t *testing.T, b []byte, i, lag, short uint16) {
		size := max(len(b)-int(short), 0)
		fast, safe := make([]byte, size), make([]byte, size)
		for k := range size {
			fast[k], safe[k] = byte(k), byte(k)
		}
		fi, flag, fhigh := copyRuns(fast, b, int(i), int(lag), 0)
		si, slag, shigh := copyRunsSafe(safe, b, int(i), int(lag), 0)
		if fi != si || flag != slag || fhigh != shigh || !bytes.Equal(fast, safe) {
			t.Fatalf("%q from %d, lag %d, into %d bytes: copyRuns stops at %d, lag %d, high %#x, wrote %q; copyRunsSafe %d, %d, %#x, %q",
				b, i, lag, size, fi, flag, fhigh, fast, si, slag, shigh, safe)
		}
	})
}
