package infergate

import (
	"context"
	"time"
)

// CooldownStore remembers which models are cooling after an outage (WithModelCooldown), so that
// every client sharing it skips them. The client's own in-process store is used when none is given;
// the redisinfergate module shares one through Redis.
type CooldownStore interface {
	// Cool marks model as cooling for the callers of key for d from now.
	Cool(ctx context.Context, key, model string, d time.Duration) error
	// Cooling reports, for each of models in order, whether it is cooling for the callers of key.
	Cooling(ctx context.Context, key string, models []string) ([]bool, error)
}
