package redisquota_test

import (
	"context"
	"errors"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
)

// The limiter counts what the gateway counts, as NewLimiter does: requests and tokens on the chat
// and embeddings routes only, a request that names no model in the default quota (the gateway's
// default group), not in the first group, whose names all contain "".
func TestCountsWhatTheGatewayCounts(t *testing.T) {
	t.Parallel()
	q := infergate.Quotas{
		Groups:  []infergate.QuotaGroup{{Name: "L", Models: []string{"glm"}, Quota: infergate.Quota{Requests: 1, Window: time.Hour}}},
		Default: infergate.Quota{Requests: 1, Window: time.Hour},
	}
	for name, newLimiter := range map[string]func(t *testing.T) infergate.Limiter{
		"Dial":       func(t *testing.T) infergate.Limiter { l, _ := dial(t, q); return l },
		"NewLimiter": func(*testing.T) infergate.Limiter { return infergate.NewLimiter(q) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l := newLimiter(t)
			admitted := func(req infergate.LimitRequest) bool {
				t.Helper()
				ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
				defer cancel()
				p, err := l.Acquire(ctx, req)
				if errors.Is(err, context.DeadlineExceeded) {
					return false
				}
				if err != nil {
					t.Fatalf("Acquire(%+v): %v", req, err)
				}
				p.Release(infergate.LimitReport{StatusCode: 200})
				return true
			}
			for range 3 { // the catalogue: not counted
				if !admitted(infergate.LimitRequest{Key: "k", Route: "/models"}) {
					t.Fatal("a /models call was held back; the gateway does not count them")
				}
			}
			if !admitted(infergate.LimitRequest{Key: "k", Model: "glm-5", Route: "/chat/completions"}) {
				t.Fatal("the first call to group L was held back")
			}
			if !admitted(infergate.LimitRequest{Key: "k", Route: "/embeddings", Tokens: 1}) {
				t.Fatal("the first call naming no model was held back")
			}
			if admitted(infergate.LimitRequest{Key: "k", Route: "/embeddings", Tokens: 1}) {
				t.Fatal("a second call naming no model was admitted in a default quota of 1")
			}
		})
	}
}
