package sse

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// decodedEvent is an Event with its data copied, since Event.Data is only valid until the next call.
type decodedEvent struct {
	Kind  Kind
	Name  string
	Data  string
	Value *string // nil when the event has none
}

// decodeAll reads every event, refusing to loop forever: each event consumes at least one input byte,
// so more events than input bytes means the decoder is stuck.
func decodeEvents(t *testing.T, r io.Reader, size, maxLine int) ([]decodedEvent, error) {
	t.Helper()
	d := NewDecoder(r, maxLine)
	var events []decodedEvent
	for {
		ev, err := d.Next()
		if err != nil {
			return events, err
		}
		de := decodedEvent{Kind: ev.Kind, Name: ev.Name, Data: string(ev.Data)}
		if ev.Value != nil {
			v := string(ev.Value)
			de.Value = &v
		}
		checkStray(t, ev)
		events = append(events, de)
		if len(events) > size+1 {
			t.Fatalf("decoder returned %d events from %d bytes: it is not making progress", len(events), size)
		}
	}
}

// checkStray checks that a stray field's name and value are the line's: the name, a colon, an
// optional space, the value.
func checkStray(t *testing.T, ev Event) {
	t.Helper()
	if ev.Kind != Stray || ev.Name == "" {
		if ev.Value != nil || (ev.Kind == Stray && ev.Name != "") {
			t.Fatalf("event %+v has a value but no field name", ev)
		}
		return
	}
	rest, ok := bytes.CutPrefix(ev.Data, []byte(ev.Name+":"))
	if ok && !bytes.Equal(rest, ev.Value) {
		rest, ok = bytes.CutPrefix(rest, []byte(" "))
	}
	if !ok || !bytes.Equal(rest, ev.Value) || !isFieldName([]byte(ev.Name)) {
		t.Fatalf("stray line %q read as field %q with value %q", ev.Data, ev.Name, ev.Value)
	}
}

// chunkedReader hands out its input in pseudo-random pieces, as TCP reads would.
type chunkedReader struct {
	data []byte
	rng  *rand.Rand
}

func (c *chunkedReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(1+c.rng.IntN(16), len(c.data), len(p))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

func addSeeds(f *testing.F) {
	seeds := []string{
		"data: {\"id\":\"c1\"}\n\ndata: [DONE]\n\n",
		"data:{\"a\":1}\r\n\r\ndata: b\r\n\r\n",
		"data: a\rdata: b\r\r",
		": keep-alive\n\nevent: message\ndata: x\nid: 7\nretry: 100\n\n",
		"data: line1\ndata: line2\n\n",
		"{\"error\":{\"message\":\"boom\"}}\n",
		"data: last event without blank line",
		"data: provider failed, failover enabled\n\n",
		"\r\n\r\n\n\r",
		"data\n\ndata:\n\n",
		"event: e\n\nevent: f\ndata: g\n\n",
		"data: {\"id\":\"c1\"}\n\nerror: {\"error\":{\"code\":500,\"message\":\"boom\",\"type\":\"server_error\"}}\n",
		"error: {\"code\":400,\"message\":\"too long\",\"type\":\"invalid_request_error\"}\r\n\r\ndata: [DONE]\r\n\r\n",
		"error:x\nweird-field_2: \nnot a field: y\n:\n",
	}
	for i, s := range seeds {
		f.Add([]byte(s), uint64(i))
	}
}

// FuzzDecoder checks that any input decodes without panic, that the events do not depend on how the
// input is split across reads (the gateway's events arrive split anywhere), and that the decoder
// always reaches the end.
func FuzzDecoder(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, input []byte, seed uint64) {
		whole, wholeErr := decodeEvents(t, bytes.NewReader(input), len(input), 0)
		if wholeErr != io.EOF {
			t.Fatalf("reading the whole input: got error %v, want io.EOF", wholeErr)
		}
		split, splitErr := decodeEvents(t, &chunkedReader{input, rand.New(rand.NewPCG(seed, seed))}, len(input), 0)
		if splitErr != io.EOF {
			t.Fatalf("reading in pieces: got error %v, want io.EOF", splitErr)
		}
		if diff := cmp.Diff(whole, split); diff != "" {
			t.Fatalf("events differ between one read and split reads (-whole +split):\n%s", diff)
		}
		bytewise, _ := decodeEvents(t, iotest.OneByteReader(bytes.NewReader(input)), len(input), 0)
		if diff := cmp.Diff(whole, bytewise); diff != "" {
			t.Fatalf("events differ between one read and one-byte reads (-whole +bytewise):\n%s", diff)
		}
	})
}

// FuzzDecoderBounded checks the memory bound: with a small limit, no event the decoder returns is
// larger than the limit, however the input piles up lines, and exceeding it is ErrLineTooLong.
func FuzzDecoderBounded(f *testing.F) {
	addSeeds(f)
	f.Add(bytes.Repeat([]byte("data: 0123456789\n"), 20), uint64(1))
	f.Add(bytes.Repeat([]byte("x"), 300), uint64(2))
	const limit = 64
	f.Fuzz(func(t *testing.T, input []byte, seed uint64) {
		d := NewDecoder(&chunkedReader{input, rand.New(rand.NewPCG(seed, 0))}, limit)
		for range len(input) + 2 {
			ev, err := d.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				if !errors.Is(err, ErrLineTooLong) {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if len(ev.Data) > limit {
				t.Fatalf("event of %d bytes passed a %d-byte limit", len(ev.Data), limit)
			}
		}
		t.Fatalf("decoder did not finish %d bytes of input", len(input))
	})
}
