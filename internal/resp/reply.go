package resp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Bounds on what one reply may hold. The limiter's replies are a few integers; a server (or
// something else on its address) that announces more is not believed before its bytes arrive.
const (
	maxDepth    = 32      // nesting of aggregates
	maxElements = 1 << 20 // values of one reply, all its aggregates' elements together
	maxBulk     = 64 << 20
	maxLine     = 16 << 10 // a simple string, an error or a length line: the reader's buffer
	preallocate = 64       // elements allocated before they are read
)

// Error is an error reply of the server ("-ERR ...", "-NOSCRIPT ..."): the server answered, and
// the connection stays usable.
type Error string

func (e Error) Error() string { return string(e) }

// RedisError marks an error reply, as go-redis's errors mark theirs, so that a caller can tell a
// server's answer from a failed connection whichever client it came through.
func (Error) RedisError() {}

// Prefix is the error's code: its first word (NOSCRIPT, WRONGTYPE, LOADING, ...).
func (e Error) Prefix() string {
	code, _, _ := strings.Cut(string(e), " ")
	return code
}

// ErrProtocol is wrapped by the error of a reply that is not RESP: another server on the address,
// a proxy's page, bytes cut short. The connection cannot be used again.
var ErrProtocol = errors.New("resp: not a Redis reply")

func protocolError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrProtocol, fmt.Sprintf(format, args...))
}

// readReply reads one reply. Its values are int64 (integers, RESP3 booleans as 0 and 1), string
// (simple and bulk strings, RESP3 doubles, big numbers and verbatim strings), nil (null), []any
// (arrays, RESP3 sets, and RESP3 maps as their keys and values in turn) and Error. A RESP3
// attribute before a reply is read and dropped. An error reply nested in an aggregate is a value
// of it; at the top, it is the returned error.
func readReply(r *bufio.Reader) (any, error) {
	left := maxElements
	v, err := readValue(r, 0, &left)
	if err != nil {
		return nil, err
	}
	if e, ok := v.(Error); ok {
		return nil, e
	}
	return v, nil
}

// readValue reads one value, nested depth deep, of a reply that may hold left more values.
func readValue(r *bufio.Reader, depth int, left *int) (any, error) {
	if depth > maxDepth {
		return nil, protocolError("aggregates nested deeper than %d", maxDepth)
	}
	if *left--; *left < 0 {
		return nil, protocolError("a reply of more than %d values", maxElements)
	}
	line, err := readLine(r)
	if err != nil {
		if depth > 0 {
			err = unexpectedEOF(err) // the reply began: io.EOF is only for a reply not begun
		}
		return nil, err
	}
	if len(line) == 0 {
		return nil, protocolError("an empty line")
	}
	kind, rest := line[0], line[1:]
	switch kind {
	case '+':
		return string(rest), nil
	case '-':
		return Error(rest), nil
	case ':':
		return parseInt(rest)
	case '_':
		if len(rest) != 0 {
			return nil, protocolError("a null with a value")
		}
		return nil, nil
	case '#':
		switch string(rest) {
		case "t":
			return int64(1), nil
		case "f":
			return int64(0), nil
		}
		return nil, protocolError("a boolean %q", truncate(rest))
	case ',', '(':
		if len(rest) == 0 {
			return nil, protocolError("an empty number")
		}
		return string(rest), nil
	case '$', '=', '!':
		n, err := parseLength(rest, maxBulk)
		if err != nil || n < 0 {
			return nil, err // a null bulk string is nil, nil
		}
		b, err := readBulk(r, n)
		if err != nil {
			return nil, err
		}
		switch kind {
		case '=': // a verbatim string: "txt:" and its text
			if len(b) < 4 || b[3] != ':' {
				return nil, protocolError("a verbatim string without its format")
			}
			return string(b[4:]), nil
		case '!':
			return Error(b), nil
		}
		return string(b), nil
	case '*', '~', '>', '%', '|':
		n, err := parseLength(rest, maxElements)
		if err != nil || n < 0 {
			return nil, err // a null array is nil, nil
		}
		if kind == '%' || kind == '|' {
			if n > maxElements/2 {
				return nil, protocolError("a map of %d pairs", n)
			}
			n *= 2
		}
		list := make([]any, 0, min(n, preallocate))
		for range n {
			v, err := readValue(r, depth+1, left)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		if kind == '|' { // an attribute describes the reply that follows it, which it nests
			return readValue(r, depth+1, left)
		}
		return list, nil
	}
	return nil, protocolError("a line beginning %q", truncate(line))
}

// readLine returns a line without its CRLF, valid until the next read.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return nil, protocolError("a line longer than %d bytes", r.Size())
	}
	if err != nil {
		if errors.Is(err, io.EOF) && len(line) > 0 {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return nil, protocolError("a line not ended by CRLF")
	}
	return line[:len(line)-2], nil
}

// readBulk reads n bytes and their CRLF. Memory grows with the bytes that arrive, not with the
// length announced.
func readBulk(r *bufio.Reader, n int) ([]byte, error) {
	var b []byte
	if n <= r.Size() {
		b = make([]byte, n+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, unexpectedEOF(err)
		}
	} else {
		var buf bytes.Buffer
		if _, err := io.CopyN(&buf, r, int64(n)+2); err != nil {
			return nil, unexpectedEOF(err)
		}
		b = buf.Bytes()
	}
	if b[n] != '\r' || b[n+1] != '\n' {
		return nil, protocolError("a bulk string not ended by CRLF")
	}
	return b[:n], nil
}

func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

func parseInt(b []byte) (int64, error) {
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, protocolError("an integer %q", truncate(b))
	}
	return n, nil
}

// parseLength reads a length: -1 is null, anything else below 0 or above limit is not believed.
func parseLength(b []byte, limit int) (int, error) {
	n, err := parseInt(b)
	if err != nil {
		return 0, err
	}
	if n < -1 || n > int64(limit) {
		return 0, protocolError("a length of %d", n)
	}
	return int(n), nil
}

// truncate keeps what an error quotes of a server's bytes short.
func truncate(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}
