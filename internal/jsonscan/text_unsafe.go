//go:build !purego

package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// view is b as a string, without a copy: b must never change after (see texts). Its safe twin,
// the one built with the purego tag, copies.
func view(b []byte) string { return unsafe.String(&b[0], len(b)) }

// copyRuns is copyRunsSafe with its reads and writes through pointers, without bounds checks: on
// text that escapes a byte in five the checks and the registers they take cost a third of the
// loop. Every access stays in b and dst: a word is read at b[i] and written at dst[i-lag] only
// while i+8 < len(b) <= len(dst) and 0 <= lag <= i, which the loop keeps (an escape adds 1 to lag
// and 2 to i), and the byte after a backslash, at most i+8, is then in b too. Its safe twin is
// copyRunsSafe, which the purego tag selects and FuzzUnescapeTwins holds it to.
func copyRuns(dst, b []byte, i, lag int, high uint64) (int, int, uint64) {
	if lag < 0 || lag > i || len(dst) < len(b) {
		return i, lag, high
	}
	src, out := unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(dst))
	for i < len(b)-8 {
		x := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(src, i))[:])
		binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(out, i-lag))[:], x)
		stop := stopMarks(x)
		if stop == 0 {
			high |= x
			i += 8
			continue
		}
		high |= x & (stop - 1)
		i += bits.TrailingZeros64(stop) / 8
		if *(*byte)(unsafe.Add(src, i)) != '\\' {
			break
		}
		c := simpleEscape[*(*byte)(unsafe.Add(src, i+1))]
		if c == 0 {
			break
		}
		*(*byte)(unsafe.Add(out, i-lag)) = c
		i, lag = i+2, lag+1
	}
	return i, lag, high
}
