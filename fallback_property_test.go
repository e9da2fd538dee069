package infergate_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/infergate/infergate-go"
)

// modelBehaviour is what one model of a generated gateway does with every request.
type modelBehaviour int

const (
	answers     modelBehaviour = iota
	failsInBand                // role chunks, then an in-band error
	endsEarly                  // role chunks, then the end of the body
	fails502
)

// Random fallback lists of models that each answer or fail in one way, with a random retry budget:
// the call is served by the first model that answers, every model before it asked its budget's
// worth of requests, the in-band errors all kept in Skipped; with none answering, a *FallbackError
// (or, alone, the model's own error).
func TestFallbackProperty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 32))
	for iter := range 60 {
		n, retries, roles := 1+rng.IntN(4), rng.IntN(3), rng.IntN(3)
		models := make([]string, n)
		behaviour := map[string]modelBehaviour{}
		scripts := map[string]modelScript{}
		for i := range models {
			models[i] = fmt.Sprintf("m%d", i)
			b := modelBehaviour(rng.IntN(4))
			behaviour[models[i]] = b
			var events []string
			for range roles {
				events = append(events, chunkJSON(models[i], "", ""))
			}
			switch b {
			case answers:
				events = append(events, chunkJSON(models[i], "answer", ""), chunkJSON(models[i], "", "stop"), "data: [DONE]\n\n")
				scripts[models[i]] = inBand(events...)
			case failsInBand:
				scripts[models[i]] = inBand(append(events, inBandFailure)...)
			case endsEarly:
				scripts[models[i]] = inBand(events...)
			case fails502:
				scripts[models[i]] = failStatus(http.StatusBadGateway)
			}
		}
		name := fmt.Sprintf("%d: %v retries %d roles %d", iter, behaviour, retries, roles)
		g, srv := newModelGateway(t, scripts)
		c := fallbackClient(t, srv.URL, infergate.WithMaxRetries(retries), infergate.WithFallbackModels(models[1:]...))
		served, skipped := -1, 0
		for i, m := range models {
			if behaviour[m] == answers {
				served = i
				break
			}
			if behaviour[m] == failsInBand {
				skipped += retries + 1
			}
		}
		req := infergate.ChatRequest{Model: models[0], Messages: []infergate.Message{infergate.UserMessage("hi")}}
		var info infergate.ResponseInfo
		st, err := c.Chat.Stream(context.Background(), req, infergate.WithResponseInfo(&info))
		var text strings.Builder
		if err == nil {
			for st.Next() {
				text.WriteString(st.Current().Text())
			}
			err = st.Err()
			if st.SkippedCount() != skipped {
				t.Errorf("%s: SkippedCount %d, want %d", name, st.SkippedCount(), skipped)
			}
			st.Close()
		}
		var fb *infergate.FallbackError
		switch {
		case served >= 0:
			if err != nil || text.String() != "answer" || len(info.Fallbacks) != served {
				t.Errorf("%s: %q, %v, %d fallbacks; want model %d's answer", name, text.String(), err, len(info.Fallbacks), served)
			}
		case n > 1:
			if !errors.As(err, &fb) || len(fb.Attempts) != n {
				t.Errorf("%s: err %v; want a *FallbackError of %d models", name, err, n)
			}
		default:
			if err == nil || errors.As(err, &fb) {
				t.Errorf("%s: err %v; want the model's own error", name, err)
			}
		}
		for i, m := range models {
			want := retries + 1
			switch {
			case i == served:
				want = 1
			case served >= 0 && i > served:
				want = 0
			}
			if got := g.hitsOf(m); got != want {
				t.Errorf("%s: %s asked %d times, want %d", name, m, got, want)
			}
		}
	}
}
