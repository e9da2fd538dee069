package main

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/infergate/infergate-go/gatewaytest"
)

func TestAccountCommands(t *testing.T) {
	t.Parallel()
	october := func(s *gatewaytest.Server) {
		s.AddUsage(
			gatewaytest.UsageRecord{CreatedAt: gatewaytest.FixedTime().Add(-2 * time.Hour), ModelName: "llama-3.3-70b",
				Endpoint: "/chat/completions", InputTokens: 12, OutputTokens: 30, TotalTokens: 42,
				AmountPaid: "0.000042", AmountStake: "0", AmountTotal: "0.000042", RequestID: "0000abcd"},
			gatewaytest.UsageRecord{CreatedAt: gatewaytest.FixedTime().Add(-time.Hour), ModelName: "whisper-v3-large-turbo",
				Endpoint: "/audio/transcriptions", TotalTokens: 0,
				AmountPaid: "0.0125", AmountStake: "0", AmountTotal: "0.0125", RequestID: "0000abce"},
			gatewaytest.UsageRecord{CreatedAt: gatewaytest.FixedTime().AddDate(0, -1, 0), ModelName: "llama-3.3-70b",
				Endpoint: "/chat/completions", TotalTokens: 7, AmountPaid: "1", AmountStake: "0", AmountTotal: "1"},
		)
	}
	unhealthy := func(s *gatewaytest.Server) {
		// Every attempt fails, retries included, at once: Retry-After 0.
		s.FailNext(3, gatewaytest.DetailErrorReply(503, "database unreachable").WithRetryAfter(0).On("/health"))
	}
	runGolden(t, []goldenCase{
		{name: "balance", args: []string{"balance"}},
		{name: "balance-json", args: []string{"balance", "--json"}},
		{name: "usage", args: []string{"usage"}, setup: october},
		{name: "usage-json", args: []string{"usage", "--json"}, setup: october},
		{name: "usage-other-month", args: []string{"usage", "--month", "2025-09"}, setup: october},
		{name: "usage-none", args: []string{"usage", "--month", "2024-01"}},
		{name: "usage-bad-month", args: []string{"usage", "--month", "October"}},
		{name: "health", args: []string{"health"}},
		{name: "health-json", args: []string{"health", "--json"}},
		{name: "health-down", args: []string{"health"}, setup: unhealthy},
	})
}

// TestHealthUnhealthy checks that a gateway that answers but is not healthy prints its report and
// exits with status 1, for scripts and probes.
func TestHealthUnhealthy(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok","version":"1.2.3","database":"unhealthy","model_service":{"status":"healthy","model_count":3}}`))
	}))
	t.Cleanup(srv.Close)
	c := newCLI(t)
	c.env["INFERGATE_BASE_URL"] = srv.URL
	r := c.run(context.Background(), "health")
	if r.code != exitFailed || !strings.Contains(r.stdout, "healthy        no") || !strings.Contains(r.stdout, "unhealthy") {
		t.Errorf("health of an unhealthy gateway = %+v, want its report and exit status 1", r)
	}
	if strings.Contains(r.stderr, "infergate:") {
		t.Errorf("stderr = %q, want no error line: the report says it", r.stderr)
	}
}

// The month's total of tokens holds whatever counts the records carry: two that would wrap the sum
// give the largest int, and a negative one takes nothing away.
func TestUsageTotalOfOddCounts(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	at := gatewaytest.FixedTime().Add(-time.Hour)
	c.srv.AddUsage(
		gatewaytest.UsageRecord{CreatedAt: at, ModelName: "a", TotalTokens: math.MaxInt, AmountPaid: "0", AmountStake: "0", AmountTotal: "0"},
		gatewaytest.UsageRecord{CreatedAt: at, ModelName: "b", TotalTokens: math.MaxInt, AmountPaid: "0", AmountStake: "0", AmountTotal: "0"},
		gatewaytest.UsageRecord{CreatedAt: at, ModelName: "c", TotalTokens: -5, AmountPaid: "0", AmountStake: "0", AmountTotal: "0"})
	r := c.run(context.Background(), "usage")
	if want := "October 2025: 3 calls, " + strconv.Itoa(math.MaxInt) + " tokens"; r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("usage = %+v; want a summary with %q", r, want)
	}
}
