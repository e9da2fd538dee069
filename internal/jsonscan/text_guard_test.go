//go:build linux

package jsonscan

import (
	"strings"
	"syscall"
	"testing"
)

// guarded is a page of memory followed by one that cannot be read or written: a slice that ends
// at the first page's end faults on any access past it.
func guarded(t *testing.T) []byte {
	t.Helper()
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Skipf("mprotect: %v", err)
	}
	return mem[:page:page]
}

// TestUnescapeStaysInBounds cuts escape-dense strings at every length, a trailing backslash
// among them, puts each at the very end of a page that a page no access is allowed to follows,
// and unescapes it into a buffer just as long that ends at another such page, from every start:
// a read or write past either slice would fault. Each result must be copyRunsSafe's.
func TestUnescapeStaysInBounds(t *testing.T) {
	t.Parallel()
	in, out := guarded(t), guarded(t)
	texts := []string{
		`"{\"label\":\"record 1\",\"score\":0.33,\"tags\":[\"alpha\"],\"note\":\"see \\ the \"}"`,
		`"\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\"`,
		`"plain words of text, eight bytes at a time, é and 世 among them"`,
		`"\u00e9\ud83d\ude00\n\t\/\b\f\r\"\x\u12"`,
		"\"\x01 control\x1f and \xff invalid\"",
	}
	for _, text := range texts {
		for k := range len(text) + 1 {
			cut := text[:k]
			for _, lit := range []string{cut, cut + `\`} {
				b := in[len(in)-len(lit):]
				copy(b, lit)
				dst := out[len(out)-len(lit):]
				// A string ends at its closing quote, which Unquote wants last.
				n, next, ok := unescapeInto(dst, 0, b, 1)
				if _, wholeOK := Unquote([]byte(lit)); wholeOK && !ok {
					t.Fatalf("%q: declined, though Unquote accepts it", lit)
				}
				if want, wantOK := Unquote([]byte(lit[:next])); ok && (!wantOK || string(dst[:n]) != want) {
					t.Fatalf("%q: unescaped %q, Unquote %q (ok %v)", lit[:next], dst[:n], want, wantOK)
				}
				for i := range len(lit) + 2 {
					for _, lag := range []int{0, 1, i / 2, i} {
						safe := make([]byte, len(lit))
						for k := range safe {
							safe[k], dst[k] = byte(k), byte(k)
						}
						si, slag, shigh := copyRunsSafe(safe, b, i, lag, 0)
						fi, flag, fhigh := copyRuns(dst, b, i, lag, 0)
						if fi != si || flag != slag || fhigh != shigh || string(dst) != string(safe) {
							t.Fatalf("%q from %d, lag %d: copyRuns stops at %d (lag %d), copyRunsSafe at %d (lag %d)", lit, i, lag, fi, flag, si, slag)
						}
					}
				}
			}
		}
	}
	if !strings.HasSuffix(string(in), `\`) {
		t.Fatal("the last input did not end in a backslash")
	}
}
