package infergate

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestTranscriptionNilFile gives typed nil readers as File: a *ValidationError, not a panic.
func TestTranscriptionNilFile(t *testing.T) {
	srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, `{"text":"x"}`) })
	client, _ := newTestClient(t, srv.URL)
	for _, file := range []io.Reader{(*os.File)(nil), (*bytes.Reader)(nil), (*strings.Reader)(nil), (*io.SectionReader)(nil)} {
		req := TranscriptionRequest{File: file, FileName: "a.wav"}
		var invalid *ValidationError
		if err := req.Validate(); !errors.As(err, &invalid) || invalid.Field != "File" {
			t.Errorf("%T: Validate = %v, want a File *ValidationError", file, err)
		}
		req.FileName = ""
		if _, err := client.Audio.Transcribe(t.Context(), req); !errors.As(err, &invalid) {
			t.Errorf("%T without a name: Transcribe = %v, want a *ValidationError", file, err)
		}
	}
	if got := srv.hits.Load(); got != 0 {
		t.Errorf("server saw %d requests, want none", got)
	}
}

// failingReaderAt is an upload whose reads fail, as a file on a dying disk does.
type failingReaderAt struct{ reads atomic.Int64 }

func (f *failingReaderAt) Read([]byte) (int, error) { return 0, errors.New("unused") }
func (f *failingReaderAt) ReadAt([]byte, int64) (int, error) {
	f.reads.Add(1)
	return 0, errors.New("input/output error")
}
func (f *failingReaderAt) Size() int64 { return 1 << 20 }

// TestUploadReadFailureNotRetried has the file fail while it is sent: the call fails at once, with
// the file's error, where it used to be read again on each of three attempts.
func TestUploadReadFailureNotRetried(t *testing.T) {
	checkGoroutines(t)
	srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, `{"text":"x"}`)
	})
	client, _ := newTestClient(t, srv.URL)
	file := &failingReaderAt{}
	_, err := client.Audio.Transcribe(t.Context(), TranscriptionRequest{File: file, FileName: "a.wav"})
	if err == nil || !strings.Contains(err.Error(), "input/output error") {
		t.Fatalf("err = %v, want the file's read error", err)
	}
	if got := file.reads.Load(); got != 1 {
		t.Errorf("the file was read %d times, want 1 (no retry)", got)
	}
}

// TestUnknownAuthorityNotRetried calls a TLS server whose certificate the client does not trust:
// one connection, no retries.
func TestUnknownAuthorityNotRetried(t *testing.T) {
	checkGoroutines(t)
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `[]`)
	}))
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Config.ErrorLog = nil
	srv.StartTLS()
	t.Cleanup(srv.Close)
	client, _ := newTestClient(t, srv.URL, WithRetryBackoff(10*time.Millisecond, 10*time.Millisecond))
	_, err := client.Models.List(t.Context())
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("err = %v, want a certificate error", err)
	}
	if got := conns.Load(); got != 1 {
		t.Errorf("server saw %d connections, want 1 (no retry)", got)
	}
}

// TestDecimalBounds refuses, with a *DecimalError and quickly, the numbers that used to overflow the
// scale or take seconds to parse, and keeps arithmetic on the smallest number bounded: squaring
// 1e-1000 22 times used to wrap the scale, after which String panicked and Cmp ran for minutes.
func TestDecimalBounds(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("9", MaxDecimalDigits+1), "0." + strings.Repeat("1", MaxDecimalDigits+1),
		strings.Repeat("7", 1<<22), "1" + strings.Repeat("0", 4<<20), "0.5e-1000", "1e-1001", "1e99999",
		"0." + strings.Repeat("0", MaxDecimalScale) + "1",
	} {
		start := time.Now()
		_, err := ParseDecimal(s)
		var decErr *DecimalError
		if !errors.As(err, &decErr) || len(decErr.Input) > 64 {
			t.Errorf("ParseDecimal(%.20q…) = %v, want a *DecimalError with a short input", s, err)
		}
		if elapsed := time.Since(start); elapsed > time.Second {
			t.Errorf("ParseDecimal(%.20q…) took %v", s, elapsed)
		}
		var p struct{ Price Decimal }
		if err := json.Unmarshal([]byte(`{"Price":"`+s+`"}`), &p); !errors.As(err, &decErr) {
			t.Errorf("UnmarshalJSON(%.20q…) = %v, want a *DecimalError", s, err)
		}
	}
	for _, s := range []string{"1e-1000", "1e1000", "0." + strings.Repeat("0", 999) + "1", strings.Repeat("9", MaxDecimalDigits)} {
		if _, err := ParseDecimal(s); err != nil {
			t.Errorf("ParseDecimal(%.20q…) = %v, want it within the bounds", s, err)
		}
	}
	tiny, _ := ParseDecimal("1e-1000")
	d := tiny
	start := time.Now()
	for range 22 {
		d = d.Mul(d)
	}
	if !d.IsZero() || d.String() != "0" || d.Cmp(tiny) != -1 {
		t.Errorf("1e-1000 squared 22 times = %.20s…, want 0 after rounding at %d places", d.String(), MaxDecimalScale)
	}
	third, _ := ParseDecimal("0." + strings.Repeat("3", 1000))
	if got := third.Mul(third); got.scaleForTest() != MaxDecimalScale || !strings.HasSuffix(got.String(), "1") {
		t.Errorf("0.333…² rounded to %d places, ends %q", got.scaleForTest(), got.String()[len(got.String())-3:])
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("arithmetic took %v", elapsed)
	}
}

func (d Decimal) scaleForTest() int { return int(d.scale) }

// TestBidDurationsClamped reads durations too long for a Duration, or negative: never a negative or
// wrapped Duration.
func TestBidDurationsClamped(t *testing.T) {
	var bid RatedBid
	body := `{"bid_id":"b","price_per_second":"1","min_duration":-5,"max_duration":9223372036854775807}`
	if err := json.Unmarshal([]byte(body), &bid); err != nil {
		t.Fatal(err)
	}
	if bid.MinDuration != 0 || bid.MaxDuration != math.MaxInt64 {
		t.Errorf("durations %v and %v, want 0 and the longest Duration", bid.MinDuration, bid.MaxDuration)
	}
	if err := json.Unmarshal([]byte(`{"min_duration":9999999999999,"max_duration":"9223372036"}`), &bid); err != nil {
		t.Fatal(err)
	}
	if bid.MinDuration != math.MaxInt64 || bid.MaxDuration != 9223372036*time.Second {
		t.Errorf("durations %v and %v", bid.MinDuration, bid.MaxDuration)
	}
}

// TestEmptyErrorKeyIsSuccess answers 200 with an "error" key that reports nothing: the call succeeds.
func TestEmptyErrorKeyIsSuccess(t *testing.T) {
	for _, value := range []string{`""`, `false`, `null`, `{}`, `[]`} {
		srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
			body := strings.TrimSuffix(completionJSON("fine"), "}") + `,"error":` + value + `}`
			_, _ = io.WriteString(w, body)
		})
		client, _ := newTestClient(t, srv.URL)
		resp, err := client.Chat.Create(t.Context(), ChatRequest{Messages: []Message{UserMessage("x")}})
		if err != nil || resp.Text() != "fine" {
			t.Errorf(`"error": %s: got %v, %v; want the answer`, value, resp, err)
		}
	}
	srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"error":"quota exhausted"}`)
	})
	client, _ := newTestClient(t, srv.URL)
	var apiErr *APIError
	if _, err := client.Chat.Create(t.Context(), ChatRequest{Messages: []Message{UserMessage("x")}}); !errors.As(err, &apiErr) || apiErr.Message != "quota exhausted" {
		t.Errorf("a real error in a 200: got %v", err)
	}
}
