package infergate_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/jarcoal/httpmock"
)

func TestResponseInfo(t *testing.T) {
	t.Parallel()
	client, mock := mockClient(t)
	header := http.Header{
		"X-Request-Id":                   {"req-42"},
		"X-Ratelimit-Limit-Requests":     {"100"},
		"X-Ratelimit-Remaining-Requests": {"0"},
		"X-Ratelimit-Limit-Tokens":       {"5000"},
		"X-Ratelimit-Reset-Requests":     {"2026-11-22T20:00:00Z"},
		"X-Ratelimit-Reset-Tokens":       {"6m0s"},
	}
	captureCalls(mock, http.MethodPost, chatURL, 200, okCompletion, header)
	var info infergate.ResponseInfo
	before := time.Now()
	if _, err := client.Chat.Create(context.Background(), hello(), infergate.WithResponseInfo(&info)); err != nil {
		t.Fatal(err)
	}
	rl := info.RateLimits
	if rl == nil {
		t.Fatalf("no rate limits in %+v", info)
	}
	switch {
	case info.StatusCode != 200 || info.RequestID != "req-42" || info.Header.Get("X-Request-Id") != "req-42":
		t.Errorf("info = %+v", info)
	case rl.LimitRequests != 100 || rl.RemainingRequests != 0 || rl.LimitTokens != 5000 || rl.RemainingTokens != -1:
		t.Errorf("counts = %+v", rl)
	case !rl.ResetRequests.Equal(time.Date(2026, 11, 22, 20, 0, 0, 0, time.UTC)):
		t.Errorf("ISO-8601 reset = %v", rl.ResetRequests)
	case rl.ResetTokens.Before(before.Add(6*time.Minute)) || rl.ResetTokens.After(time.Now().Add(6*time.Minute)):
		t.Errorf("duration reset = %v", rl.ResetTokens)
	}
	if _, err := infergate.NewClient(infergate.WithResponseInfo(&info)); err == nil {
		t.Error("NewClient accepted WithResponseInfo, which concurrent calls would share")
	}

	mock.RegisterResponder(http.MethodPost, chatURL, func(*http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(200, content("hi")+finish("stop")+done)
		resp.Header.Set("Content-Type", "text/event-stream")
		resp.Header.Set("X-Request-Id", "req-stream")
		return resp, nil
	})
	stream, err := client.Chat.Stream(context.Background(), hello(), infergate.WithResponseInfo(&info))
	if err != nil {
		t.Fatal(err)
	}
	stream.Close()
	if info.RequestID != "req-stream" || info.RateLimits != nil {
		t.Errorf("stream info = %+v", info)
	}
}

func TestRateLimitedErrorCarriesLimits(t *testing.T) {
	t.Parallel()
	client, mock := mockClient(t, infergate.WithMaxRetries(0))
	captureCalls(mock, http.MethodPost, chatURL, 429, `{"error":{"message":"slow down","code":"rate_limit_exceeded"}}`,
		http.Header{"X-Ratelimit-Remaining-Tokens": {"0"}, "X-Ratelimit-Reset-Tokens": {"2026-11-22T20:00:00.5+00:00"}})
	_, err := client.Chat.Create(context.Background(), hello())
	var apiErr *infergate.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, infergate.ErrRateLimited) {
		t.Fatalf("err = %v", err)
	}
	if rl := apiErr.RateLimits; rl == nil || rl.RemainingTokens != 0 || rl.LimitTokens != -1 || rl.ResetTokens.IsZero() {
		t.Errorf("rate limits = %+v", apiErr.RateLimits)
	}
}

// A framework adapter asks for the call's ResponseInfo itself; its caller's own request must still
// be filled, fallbacks included.
func TestResponseInfoGivenTwiceFillsBoth(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.NewServer(
		gatewaytest.WithModelDown(gatewaytest.DefaultModel, gatewaytest.OutageRetryFailed),
		gatewaytest.WithReplies(gatewaytest.Reply{Content: "hi"}))
	defer gw.Close()
	client := gw.Client(infergate.WithFallbackModels("qwen2.5-vl-72b"))
	var mine, adapters infergate.ResponseInfo
	req := infergate.ChatRequest{Model: gatewaytest.DefaultModel, Messages: []infergate.Message{infergate.UserMessage("Hi")}}
	if _, err := client.Chat.Create(context.Background(), req,
		infergate.WithResponseInfo(&mine), infergate.WithResponseInfo(nil), infergate.WithResponseInfo(&adapters)); err != nil {
		t.Fatal(err)
	}
	for name, info := range map[string]*infergate.ResponseInfo{"first": &mine, "second": &adapters} {
		if info.StatusCode != http.StatusOK || info.RequestID == "" {
			t.Errorf("%s info not filled: %+v", name, info)
		}
		if len(info.Fallbacks) != 1 || info.Fallbacks[0].Model != gatewaytest.DefaultModel {
			t.Errorf("%s info's fallbacks = %+v, want the down default model", name, info.Fallbacks)
		}
	}
	mine.Header.Set("X-Changed", "1")
	if adapters.Header.Get("X-Changed") != "" {
		t.Error("the two infos share one header map")
	}
}
