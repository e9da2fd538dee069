package redisinfergate_test

import (
	"context"
	"log"
	"log/slog"
	"os"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/redisinfergate"
	"github.com/redis/go-redis/v9"
)

// Every replica of a service builds the same limiter on the same Redis: together they stay within
// the gateway's quotas for the key. It needs a Redis, so the example is compiled, not run.
func ExampleNewLimiter() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	defer rdb.Close()
	limiter := redisinfergate.NewLimiter(rdb, infergate.GatewayQuotas(), redisinfergate.WithLogger(logger))

	// A client given the limiter asks it before every attempt; asked directly, it is this:
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	permit, err := limiter.Acquire(ctx, infergate.LimitRequest{Key: "team-a", Model: "glm-5.1", Route: "/chat/completions", Tokens: 1200})
	if err != nil {
		log.Fatal(err) // the minute passed before a place came free
	}
	// ... the call, then what its answer said:
	permit.Release(infergate.LimitReport{StatusCode: 200, Usage: &infergate.Usage{PromptTokens: 1180, CompletionTokens: 300, TotalTokens: 1480}})
	if n := limiter.Unlimited(); n > 0 {
		logger.Warn("calls went unlimited while Redis could not be reached", "calls", n)
	}
}

// Models one process saw fail are skipped by every process sharing the store.
func ExampleNewCooldownStore() {
	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	defer rdb.Close()
	store := redisinfergate.NewCooldownStore(rdb)
	ctx := context.Background()
	if err := store.Cool(ctx, "team-a", "glm-5.1", 30*time.Second); err != nil {
		log.Print(err)
	}
	cooling, err := store.Cooling(ctx, "team-a", []string{"glm-5.1", "kimi-k2.6"})
	if err != nil {
		log.Print(err)
	}
	log.Print(cooling) // [true false]
}
