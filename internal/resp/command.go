package resp

import (
	"fmt"
	"strconv"
)

// appendCommand appends args as a RESP array of bulk strings. An argument of a type it does not
// know is an error, before anything is written.
func appendCommand(b []byte, args []any) ([]byte, error) {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, '\r', '\n')
	for i, a := range args {
		var err error
		if b, err = appendArg(b, a); err != nil {
			return nil, &argumentError{fmt.Errorf("resp: argument %d: %w", i, err)}
		}
	}
	return b, nil
}

// argumentError is the error of a command that could not be written: nothing was sent, and the
// connection can be used again.
type argumentError struct{ err error }

func (e *argumentError) Error() string { return e.err.Error() }
func (e *argumentError) Unwrap() error { return e.err }

func appendArg(b []byte, a any) ([]byte, error) {
	var num [24]byte
	var s []byte
	switch v := a.(type) {
	case string:
		return appendBulk(b, v), nil
	case []byte:
		return appendBulk(b, v), nil
	case int:
		s = strconv.AppendInt(num[:0], int64(v), 10)
	case int64:
		s = strconv.AppendInt(num[:0], v, 10)
	case int32:
		s = strconv.AppendInt(num[:0], int64(v), 10)
	case uint64:
		s = strconv.AppendUint(num[:0], v, 10)
	case float64:
		s = strconv.AppendFloat(num[:0], v, 'f', -1, 64)
	case bool:
		s = append(num[:0], '0')
		if v {
			s[0] = '1'
		}
	default:
		return nil, fmt.Errorf("%T is not a string nor a number", a)
	}
	return appendBulk(b, s), nil
}

func appendBulk[T string | []byte](b []byte, s T) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, '\r', '\n')
	b = append(b, s...)
	return append(b, '\r', '\n')
}
