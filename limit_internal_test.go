package infergate

import (
	"math/rand/v2"
	"testing"

	"github.com/infergate/infergate-go/internal/quota"
)

// The estimate a limiter is asked for is the gateway's, as internal/quota computes it from the JSON
// sent, for random conversations: text with quotes, escapes and characters beyond ASCII, and parts.
func TestChatEstimateIsTheGateways(t *testing.T) {
	t.Parallel()
	c := defaultConfig()
	runes := []rune("ab \"'\\\n\té€😀\u2028")
	text := func(rng *rand.Rand) string {
		r := make([]rune, rng.IntN(60))
		for i := range r {
			r[i] = runes[rng.IntN(len(runes))]
		}
		return string(r)
	}
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 1))
		req := ChatRequest{Model: "m"}
		for range 1 + rng.IntN(4) {
			m := UserMessage(text(rng))
			if rng.IntN(4) == 0 {
				m = Message{Role: RoleUser, Parts: []ContentPart{{Type: "text", Text: text(rng)},
					{Type: "image_url", ImageURL: &ImageURL{URL: "https://x.test/" + text(rng), Detail: []string{"", "low"}[rng.IntN(2)]}}}}
			}
			req.Messages = append(req.Messages, m)
		}
		body, err := c.renderChat(&req, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		want, err := quota.ChatEstimate(body)
		if err != nil {
			t.Fatal(err)
		}
		if got := admissionEstimate(req.Messages); got != want {
			t.Errorf("seed %d: estimate %d, the gateway's %d, for %s", seed, got, want, body)
		}
	}
}
