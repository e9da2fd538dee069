package redisinfergate_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/infergate/infergate-go/redisinfergate"
)

// A cooldown one process sets is seen by the others, for its key, until it ends.
func TestCooldownStoreShared(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	key := keyOf(t)
	setter := redisinfergate.NewCooldownStore(newRedis(t))
	reader := redisinfergate.NewCooldownStore(newRedis(t))
	if err := setter.Cool(ctx, key, "glm-5", time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := setter.Cool(ctx, key, "kimi-k2.6", 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := setter.Cool(ctx, key, "llama-3.2-3b", 0); err != nil { // nothing
		t.Fatal(err)
	}
	models := []string{"glm-5", "kimi-k2.6", "llama-3.2-3b", "glm-5:web"}
	check := func(want ...bool) {
		t.Helper()
		got, err := reader.Cooling(ctx, key, models)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("Cooling(%q) = %v, %v; want %v", models, got, err, want)
		}
	}
	check(true, true, false, false)
	other, err := reader.Cooling(ctx, key+"-other", models)
	if err != nil || slices.Contains(other, true) {
		t.Fatalf("another key's Cooling = %v, %v; want none", other, err)
	}
	prefixed, err := redisinfergate.NewCooldownStore(newRedis(t), redisinfergate.WithPrefix("other-app")).Cooling(ctx, key, models)
	if err != nil || slices.Contains(prefixed, true) {
		t.Fatalf("another prefix's Cooling = %v, %v; want none", prefixed, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := reader.Cooling(ctx, key, models)
		if err != nil {
			t.Fatal(err)
		}
		if !got[1] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a 300 ms cooldown still cooling after 10 s")
		}
	}
	check(true, false, false, false)
	if got, err := reader.Cooling(ctx, key, nil); err != nil || len(got) != 0 {
		t.Fatalf("Cooling(nil) = %v, %v", got, err)
	}
}
