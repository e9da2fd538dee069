package infergate_test

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
)

// jsonscanShapes are the chunk shapes internal/jsonscan proves its decoder on: the shapes of real
// streams, and the rare, mistyped and malformed ones it leaves to encoding/json.
func jsonscanShapes(t *testing.T) []string {
	t.Helper()
	var shapes []string
	for _, name := range []string{"fast", "slow"} {
		b, err := os.ReadFile("internal/jsonscan/testdata/chunks/" + name + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		shapes = append(shapes, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
	}
	return shapes
}

// TestChunkFastPathMatchesJSON checks that a stream reads every chunk shape, through the fast
// decoder or past it, into the same chunk as encoding/json alone.
func TestChunkFastPathMatchesJSON(t *testing.T) {
	t.Parallel()
	for _, shape := range jsonscanShapes(t) {
		var d infergate.ChunkDecoders
		got, _ := d.Fast([]byte(shape))
		if diff := cmp.Diff(d.JSON([]byte(shape)), got); diff != "" {
			t.Errorf("%s: fast path differs from encoding/json (-json +fast):\n%s", shape, diff)
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

// TestChunkFastPathRepeatsOnlyWhatRepeats checks that the strings a chunk shares with the last one
// are kept, and those that differ are not, when the decoder's template changes under them: chunks
// of two shapes take turns, each read from the same reused buffer as a stream's events are, with
// ids, models and fingerprints of one length that change at random.
func TestChunkFastPathRepeatsOnlyWhatRepeats(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 11))
	pick := func(prefix string) string { return prefix + string(rune('a'+rng.IntN(3))) }
	var d infergate.ChunkDecoders
	buf := make([]byte, 0, 512)
	for i := range infergate.Scaled(2000) {
		h := `{"id":"` + pick("chatcmpl-") + `","object":"chat.completion.chunk","created":1,"model":"` +
			pick("m-") + `","system_fingerprint":"` + pick("fp_") + `","choices":[{"index":0,"delta":`
		var data string
		if rng.IntN(2) == 0 {
			data = h + `{"content":"` + pick("w") + `"},"finish_reason":null}]}`
		} else {
			data = h + `{"role":"assistant","content":"` + pick("w") + `"},"logprobs":null,"finish_reason":null}]}`
		}
		buf = append(buf[:0], data...)
		got, declined := d.Fast(buf)
		if declined {
			t.Fatalf("chunk %d declined: %s", i, data)
		}
		if diff := cmp.Diff(d.JSON([]byte(data)), got); diff != "" {
			t.Fatalf("chunk %d: %s: fast path differs from encoding/json (-json +fast):\n%s", i, data, diff)
		}
	}
}
