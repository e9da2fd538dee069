package chunkmem

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// Strings cut from the blocks keep their bytes, however many blocks come after them and however
// the input they were read from changes.
func TestTextStringsNeverChange(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	var text Text
	text.Prepare()
	buf := make([]byte, TextBlock)
	var got, want []string
	for range 3000 {
		n := rng.IntN(TextBlock/3 + 1)
		for i := range n {
			buf[i] = byte('a' + rng.IntN(26))
		}
		got = append(got, text.String(buf[:n]))
		want = append(want, string(buf[:n]))
		clear(buf)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("string %d changed: %q, want %q", i, got[i], want[i])
		}
	}
	if long := strings.Repeat("x", TextBlock/4+1); text.String([]byte(long)) != long {
		t.Error("a long piece was not kept whole")
	}
}
