package gatewaytest

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
)

// writeRecorder keeps every Write separately, which httptest.ResponseRecorder
// does not, so the test can see how a stream was cut.
type writeRecorder struct {
	*httptest.ResponseRecorder
	writes [][]byte
}

func (w *writeRecorder) Write(b []byte) (int, error) {
	w.writes = append(w.writes, bytes.Clone(b))
	return w.ResponseRecorder.Write(b)
}

func TestChunkSizeCutsWrites(t *testing.T) {
	for _, size := range []int{0, 1, 5, 13} {
		s := &Server{cfg: config{chunkSize: size, clock: FixedTime}, done: make(chan struct{})}
		c := s.completion(Reply{Content: "one two three"}, "", 1, FixedTime())
		w := &writeRecorder{ResponseRecorder: httptest.NewRecorder()}
		s.stream(w, httptest.NewRequest(http.MethodPost, "/", nil), c)
		events := streamLines(c)
		if size == 0 {
			if len(w.writes) != len(events) {
				t.Errorf("size 0: %d writes for %d events", len(w.writes), len(events))
			}
			continue
		}
		for i, b := range w.writes {
			if len(b) != size && i != len(w.writes)-1 {
				t.Errorf("size %d: write %d has %d bytes", size, i, len(b))
			}
		}
		if !bytes.Equal(bytes.Join(w.writes, nil), bytes.Join(events, nil)) {
			t.Errorf("size %d: writes do not add up to the stream", size)
		}
		if !w.Flushed {
			t.Errorf("size %d: never flushed", size)
		}
	}
}

func TestWeiToTokens(t *testing.T) {
	tests := map[string]string{
		"0":                        "0",
		"1":                        "0.000000000000000001",
		"1000000000000":            "0.000001",
		"2500000000000":            "0.0000025",
		"1000000000000000000":      "1",
		"123456789000000000000":    "123.456789",
		"-500000000000000000":      "-0.5",
		"000001000000000000000000": "1",
	}
	for in, want := range tests {
		if got := weiToTokens(in); got != want {
			t.Errorf("weiToTokens(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestSplitBytesKeepsRunes(t *testing.T) {
	got := splitBytes(`{"city":"Zürich"}`, 11)
	if len(got) != 2 || got[0] != `{"city":"Z` || got[1] != `ürich"}` {
		t.Errorf("splitBytes = %q", got)
	}
}
