package resp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func read(s string) (any, error) {
	return readReply(bufio.NewReaderSize(strings.NewReader(s), maxLine))
}

func TestReadReply(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want any
	}{
		{"+OK\r\n", "OK"},
		{"+\r\n", ""},
		{":0\r\n", int64(0)},
		{":-9223372036854775808\r\n", int64(-9223372036854775808)},
		{"$5\r\nhe\r\no\r\n", "he\r\no"},
		{"$0\r\n\r\n", ""},
		{"$-1\r\n", nil},
		{"*-1\r\n", nil},
		{"*0\r\n", []any{}},
		{"*3\r\n:1\r\n:0\r\n:1700000000000\r\n", []any{int64(1), int64(0), int64(1700000000000)}},
		{"*2\r\n$-1\r\n$1\r\n1\r\n", []any{nil, "1"}},
		{"*2\r\n*1\r\n:1\r\n-ERR inner\r\n", []any{[]any{int64(1)}, Error("ERR inner")}},
		// RESP3's types, as a server speaking it would send them.
		{"_\r\n", nil},
		{"#t\r\n", int64(1)},
		{"#f\r\n", int64(0)},
		{",1.5\r\n", "1.5"},
		{"(3492890328409238509324850943850943825024385\r\n", "3492890328409238509324850943850943825024385"},
		{"=8\r\ntxt:some\r\n", "some"},
		{"~2\r\n:1\r\n:2\r\n", []any{int64(1), int64(2)}},
		{"%1\r\n+key\r\n:7\r\n", []any{"key", int64(7)}},
		{">2\r\n+message\r\n+x\r\n", []any{"message", "x"}},
		{"|1\r\n+ttl\r\n:3\r\n:42\r\n", int64(42)},
	} {
		got, err := read(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestReadErrorReply(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Error{
		"-NOSCRIPT No matching script. Please use EVAL.\r\n": "NOSCRIPT No matching script. Please use EVAL.",
		"!21\r\nSYNTAX invalid syntax\r\n":                   "SYNTAX invalid syntax",
	} {
		_, err := read(in)
		var e Error
		if !errors.As(err, &e) || e != want {
			t.Errorf("%q: %v; want Error %q", in, err, want)
		}
	}
	if p := Error("NOSCRIPT No matching script").Prefix(); p != "NOSCRIPT" {
		t.Errorf("Prefix = %q", p)
	}
}

// Bytes that are not RESP, or are cut short, are errors: ErrProtocol, or the reader's EOF.
func TestReadOddReplies(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"", "hello\r\n", "+OK\n", "+OK", ":\r\n", ":1.5\r\n", ":99999999999999999999\r\n",
		"$3\r\nab\r\n", "$2\r\nabc\r\n", "$-2\r\n", "$" + strconv.Itoa(maxBulk+1) + "\r\n", "$5\r\nab",
		"*2\r\n:1\r\n", "*" + strconv.Itoa(maxElements+1) + "\r\n", "*-5\r\n", "%" + strconv.Itoa(maxElements) + "\r\n",
		"#x\r\n", "_x\r\n", ",\r\n", "=3\r\ntxt\r\n", "\r\n",
		"+" + strings.Repeat("a", maxLine) + "\r\n",
		strings.Repeat("*1\r\n", maxDepth+2) + ":1\r\n",
		"|1\r\n+a\r\n:1\r\n",
	} {
		v, err := read(in)
		if err == nil {
			t.Errorf("%.40q = %v; want an error", in, v)
			continue
		}
		if !errors.Is(err, ErrProtocol) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%.40q: %v; want ErrProtocol or an EOF", in, err)
		}
	}
}

// A length announced is not allocated before its bytes arrive.
func TestReadAllocatesWhatArrives(t *testing.T) {
	for _, in := range []string{"$" + strconv.Itoa(maxBulk) + "\r\nabc", "*" + strconv.Itoa(maxElements) + "\r\n:1\r\n"} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := read(in); err == nil {
			t.Fatalf("%.20q: no error", in)
		}
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("%.20q: %d bytes allocated for a few bytes of reply", in, n)
		}
	}
}

// encode writes a reply's value back in RESP2, as readReply returns it.
func encode(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "$-1\r\n"...)
	case int64:
		return append(strconv.AppendInt(append(b, ':'), v, 10), "\r\n"...)
	case string:
		return appendBulk(b, v)
	case Error: // as RESP3's blob error, which may hold any byte
		b = append(strconv.AppendInt(append(b, '!'), int64(len(v)), 10), "\r\n"...)
		return append(append(b, v...), "\r\n"...)
	case []any:
		b = append(strconv.AppendInt(append(b, '*'), int64(len(v)), 10), "\r\n"...)
		for _, e := range v {
			b = encode(b, e)
		}
		return b
	}
	panic(fmt.Sprintf("encode: %T", v))
}

// Whatever the bytes, readReply returns without panicking, and what it reads is a value of the
// types it documents, which reads back the same once written in RESP2.
func FuzzReadReply(f *testing.F) {
	for _, s := range []string{
		"+OK\r\n", ":1\r\n", "$-1\r\n", "*3\r\n:1\r\n:0\r\n:1000\r\n", "*2\r\n$-1\r\n$1\r\n1\r\n",
		"-NOSCRIPT x\r\n", "%1\r\n+k\r\n:1\r\n", "|1\r\n+a\r\n:1\r\n:2\r\n", "=5\r\ntxt:a\r\n", "#t\r\n",
		"$4\r\nab\r\n", "*1\r\n*1\r\n*1\r\n_\r\n", ">1\r\n,2.5\r\n", "!3\r\nERR\r\n",
		"|0\r\n|0\r\n:1\r\n", "*2\r\n:1\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReaderSize(strings.NewReader(string(data)), maxLine)
		for range 4 { // the replies that follow one another on a connection
			v, err := readReply(r)
			var answer Error
			if errors.As(err, &answer) {
				continue
			}
			if err != nil {
				return
			}
			if !valid(v) {
				t.Fatalf("%T %v is not a reply's value", v, v)
			}
			back, err := read(string(encode(nil, v)))
			if err != nil {
				t.Fatalf("%v written back does not read: %v", v, err)
			}
			if diff := cmp.Diff(v, back); diff != "" {
				t.Fatalf("written back and read again (-first +again):\n%s", diff)
			}
		}
	})
}

func valid(v any) bool {
	switch v := v.(type) {
	case nil, int64, string, Error:
		return true
	case []any:
		for _, e := range v {
			if !valid(e) {
				return false
			}
		}
		return true
	}
	return false
}

// A reply's values are bounded all together, not only aggregate by aggregate: nested aggregates
// each under the bound cannot add up to more.
func TestReadBoundsTheReplysValues(t *testing.T) {
	t.Parallel()
	half := maxElements/2 + 1
	part := "*" + strconv.Itoa(half) + "\r\n" + strings.Repeat("_\r\n", half)
	if _, err := read("*2\r\n" + part + part); !errors.Is(err, ErrProtocol) {
		t.Errorf("a reply of %d values: %v; want ErrProtocol", 2*half+3, err)
	}
	if v, err := read("*1\r\n" + part); err != nil || len(v.([]any)[0].([]any)) != half {
		t.Errorf("a reply of %d values: %v; want it read", half+2, err)
	}
}
