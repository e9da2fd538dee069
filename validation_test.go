package infergate

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// okTransport answers every request in memory with a body that every route reads as a success,
// counting the requests.
func okTransport(sent *atomic.Int64) roundTripFunc {
	return func(r *http.Request) (*http.Response, error) {
		sent.Add(1)
		if r.Body != nil {
			_, _ = io.Copy(io.Discard, r.Body)
		}
		return &http.Response{StatusCode: 200, Header: http.Header{}, Request: r,
			Body: io.NopCloser(strings.NewReader(`{"id":"x","text":"t","choices":[]}`))}, nil
	}
}

// FuzzRequests builds the public request types and client options from random values and sends
// them through every validating entry point: nothing may panic, a refusal is a *ValidationError
// sent before any request, and whatever passes validation encodes.
func FuzzRequests(f *testing.F) {
	f.Add("hello", "a.wav", "X-Tenant", "v", "https://gateway.test", 0.5, int64(1), 3)
	f.Add("", "", "Bad Name", "a\r\nb", "ftp://user:key@host", math.NaN(), int64(-1), -2)
	f.Add("t\x00", "../x.mp3", "", "\x7f", "https://[::1", math.Inf(1), int64(math.MaxInt64), math.MinInt)
	f.Fuzz(func(t *testing.T, text, name, headerName, headerValue, baseURL string, number float64, duration int64, count int) {
		var sent atomic.Int64
		client, err := NewClient(WithAPIKey("k"+text), WithBaseURL(baseURL), WithHeader(headerName, headerValue),
			WithRetryBackoff(time.Duration(duration), time.Duration(duration)), WithMaxRetries(0),
			WithTimeout(time.Duration(duration)), WithHTTPClient(&http.Client{Transport: okTransport(&sent)}))
		if err != nil {
			requireValidation(t, "NewClient", err)
			client, err = NewClient(WithAPIKey("k"), WithBaseURL("https://gateway.test"), WithMaxRetries(0),
				WithHTTPClient(&http.Client{Transport: okTransport(&sent)}))
			if err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		header := WithHeader(headerName, headerValue)
		chat := ChatRequest{Model: name, Messages: []Message{UserMessage(text), AssistantMessage(name)},
			Temperature: &number, TopP: &number, N: &count, MaxTokens: &count, Stop: strings.Fields(text),
			Tools: []Tool{{Function: FunctionDefinition{Name: name, Description: text, Parameters: map[string]any{"type": "object"}}}}, ToolChoice: ToolChoiceFunction(text)}
		audio := TranscriptionRequest{File: strings.NewReader(text), FileName: name, Temperature: &number,
			ResponseFormat: TranscriptionFormat(text), Language: text,
			TimestampGranularities: []TimestampGranularity{TimestampGranularity(name)}}
		msg := AddMessageRequest{Role: Role(name), Content: text, Tokens: &count}
		calls := map[string]func() error{
			"Chat.Create": func() error { _, err := client.Chat.Create(ctx, chat, header); return err },
			"Audio.Transcribe": func() error {
				_, err := client.Audio.Transcribe(ctx, audio, header, WithTimeout(time.Duration(duration)))
				return err
			},
			"History.Create":     func() error { _, err := client.History.Create(ctx, text, header); return err },
			"History.Rename":     func() error { _, err := client.History.Rename(ctx, name, text, header); return err },
			"History.AddMessage": func() error { _, err := client.History.AddMessage(ctx, name, msg, header); return err },
			"Sessions.CreateFromBid": func() error {
				_, err := client.Sessions.CreateFromBid(ctx, name, SessionOptions{Duration: time.Duration(duration)}, header)
				return err
			},
			"Models.Get": func() error { _, err := client.Models.Get(ctx, name, header); return err },
		}
		for route, call := range calls {
			before, start := sent.Load(), time.Now()
			err := call()
			if elapsed := time.Since(start); elapsed > 2*time.Second {
				t.Fatalf("%s took %v", route, elapsed)
			}
			var invalid *ValidationError
			if errors.As(err, &invalid) && sent.Load() != before {
				t.Fatalf("%s: refused with %v after sending a request", route, err)
			}
		}
		if chat.Validate() == nil {
			if _, err := json.Marshal(chat); err != nil {
				t.Fatalf("a valid chat request does not encode: %v", err)
			}
		}
		if audio.Validate() == nil {
			if _, err := client.cfg.newUpload(ctx, &audio); err != nil {
				t.Fatalf("a valid transcription request does not encode: %v", err)
			}
		}
		_, _ = json.Marshal(msg)
		_, _ = SessionOptions{Duration: time.Duration(duration)}.wire()
	})
}

func requireValidation(t *testing.T, what string, err error) {
	t.Helper()
	var invalid *ValidationError
	if !errors.As(err, &invalid) {
		t.Fatalf("%s: %v is not a *ValidationError", what, err)
	}
}
