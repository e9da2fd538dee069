package chunkmem

import (
	"strings"
	"testing"
)

// FuzzBuilderTwins runs the same writes on a Builder and on builderSafe, its safe twin: the texts
// and their pieces must be equal after every write, and every string handed out must keep its
// bytes to the end.
func FuzzBuilderTwins(f *testing.F) {
	f.Add([]byte{3, 'a', 'b', 'c', 0x82, 'x', 0x40, 1, 2, 3, 4, 5})
	f.Add([]byte(strings.Repeat("\x05hello\x83world", 40)))
	f.Fuzz(func(t *testing.T, ops []byte) {
		var fast Builder
		var safe builderSafe
		type kept struct{ got, want string }
		var pieces []kept
		for len(ops) > 0 {
			op := ops[0]
			ops = ops[1:]
			n := min(int(op&0x3f), len(ops))
			switch op >> 6 {
			case 0: // write bytes
				fast.Write(ops[:n])
				safe.Write(ops[:n])
			case 1: // write a string
				fast.WriteString(string(ops[:n]))
				safe.WriteString(string(ops[:n]))
			case 2: // grow
				fast.Grow(n * 7)
				safe.Grow(n * 7)
				n = 0
			default: // a piece from n bytes before the end
				start := max(fast.Len()-n, 0)
				pieces = append(pieces, kept{fast.Piece(start), strings.Clone(safe.Piece(start))})
				n = 0
			}
			ops = ops[n:]
			if fast.Len() != safe.Len() || fast.String() != safe.String() || fast.Cap() < fast.Len() {
				t.Fatalf("texts differ: %q (len %d, cap %d), safe %q", fast.String(), fast.Len(), fast.Cap(), safe.String())
			}
			pieces = append(pieces, kept{fast.String(), strings.Clone(safe.String())})
		}
		for i, p := range pieces {
			if p.got != p.want {
				t.Fatalf("string %d changed: %q, want %q", i, p.got, p.want)
			}
		}
	})
}
