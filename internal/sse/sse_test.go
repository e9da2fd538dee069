package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

type got struct {
	kind Kind
	name string
	data string
}

func decodeAll(t *testing.T, r io.Reader, maxLine int) ([]got, error) {
	t.Helper()
	d := NewDecoder(r, maxLine)
	var out []got
	for {
		ev, err := d.Next()
		if err != nil {
			if err == io.EOF {
				return out, nil
			}
			return out, err
		}
		out = append(out, got{ev.Kind, ev.Name, string(ev.Data)})
	}
}

func TestDecoder(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []got
	}{
		{"LF", "data: a\n\ndata: b\n\n", []got{{Data, "", "a"}, {Data, "", "b"}}},
		{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", []got{{Data, "", "a"}, {Data, "", "b"}}},
		{"CR", "data: a\r\rdata: b\r\r", []got{{Data, "", "a"}, {Data, "", "b"}}},
		{"no space after colon", "data:a\n\n", []got{{Data, "", "a"}}},
		{"only the first space is stripped", "data:  a\n\n", []got{{Data, "", " a"}}},
		{"comments and unknown-free fields", ": hi\nid: 1\nretry: 5\ndata: a\n\n", []got{{Data, "", "a"}}},
		{"event name", "event: error\ndata: x\n\n", []got{{Data, "error", "x"}}},
		{"multi-line data", "data: a\ndata: b\n\n", []got{{Data, "", "a\nb"}}},
		{"empty data is an empty event", "data:\n\n", []got{{Data, "", ""}}},
		{"blank lines alone dispatch nothing", "\n\n\n", nil},
		{"last event without a blank line", "data: a\n\ndata: b", []got{{Data, "", "a"}, {Data, "", "b"}}},
		{"stray line", "{\"error\":\"x\"}\n\n", []got{{Stray, "", "{\"error\":\"x\"}"}}},
		{"stray line inside an event keeps the event", "data: a\n{junk}\ndata: b\n\n", []got{{Stray, "", "{junk}"}, {Data, "", "a\nb"}}},
		{"stray field, as llama-box ends a failed stream", "data: a\n\nerror: {\"error\":{}}\n", []got{{Data, "", "a"}, {Stray, "error", "error: {\"error\":{}}"}}},
		{"a line that is no field has no name", "not a field: x\n", []got{{Stray, "", "not a field: x"}}},
	}
	for _, tt := range tests {
		for _, reader := range []struct {
			name string
			wrap func(io.Reader) io.Reader
		}{{"whole", func(r io.Reader) io.Reader { return r }}, {"byte by byte", iotest.OneByteReader}, {"half", iotest.HalfReader}} {
			t.Run(tt.name+"/"+reader.name, func(t *testing.T) {
				out, err := decodeAll(t, reader.wrap(strings.NewReader(tt.in)), 0)
				if err != nil {
					t.Fatal(err)
				}
				if len(out) != len(tt.want) {
					t.Fatalf("got %q, want %q", out, tt.want)
				}
				for i := range out {
					if out[i] != tt.want[i] {
						t.Errorf("event %d = %q, want %q", i, out[i], tt.want[i])
					}
				}
			})
		}
	}
}

func TestDecoderLineLimit(t *testing.T) {
	long := "data: " + strings.Repeat("x", 100) + "\n\n"
	if _, err := decodeAll(t, strings.NewReader(long), 50); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("err = %v, want ErrLineTooLong", err)
	}
	out, err := decodeAll(t, strings.NewReader(long), 200)
	if err != nil || len(out) != 1 || len(out[0].data) != 100 {
		t.Errorf("within the limit: %v, %d events", err, len(out))
	}
}

func TestDecoderReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: partial"), iotest.ErrReader(boom))
	out, err := decodeAll(t, r, 0)
	if !errors.Is(err, boom) || len(out) != 1 {
		t.Errorf("got %q, %v; want one event then the read error", out, err)
	}
}
