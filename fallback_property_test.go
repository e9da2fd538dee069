package infergate_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
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

// A model named twice, as the request's model repeated in the list or a name listed twice, in any
// letter case, is tried once: a second request to a model whose first may have run is a second
// bill. The order is kept, the first naming wins, and a list that names no other model than the
// request's leaves the model's own error.
func TestFallbackTriesEachModelOnce(t *testing.T) {
	t.Parallel()
	for _, stream := range []bool{false, true} {
		g, srv := newModelGateway(t, map[string]modelScript{"a": failStatus(504), "b": failStatus(502), "": failStatus(503)})
		c := fallbackClient(t, srv.URL, infergate.WithFallbackModels("b", "a", "", "B", "b", "c"))
		var info infergate.ResponseInfo
		if text, err := callChat(context.Background(), c, stream, infergate.WithResponseInfo(&info)); err != nil || text != "answer" {
			t.Fatalf("stream=%v: %q, %v; want c's answer", stream, text, err)
		}
		if got := strings.Join(g.requested(), ","); got != "a,b,,c" {
			t.Errorf("stream=%v: models requested %q; want a,b,,c", stream, got)
		}
		if len(info.Fallbacks) != 3 {
			t.Errorf("stream=%v: Fallbacks %+v; want a, b and the gateway's choice", stream, info.Fallbacks)
		}
		g, srv = newModelGateway(t, map[string]modelScript{"a": failStatus(504)})
		c = fallbackClient(t, srv.URL, infergate.WithFallbackModels("A", "a"))
		_, err := callChat(context.Background(), c, stream)
		var apiErr *infergate.APIError
		var fb *infergate.FallbackError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 504 || errors.As(err, &fb) || g.hitsOf("a")+g.hitsOf("A") != 1 {
			t.Errorf("stream=%v: %v after %d requests; want a's own 504 after one", stream, err, g.hitsOf("a")+g.hitsOf("A"))
		}
	}
}

// Random lists with repeats: the models a call asks, in order, are the list with each name (letter
// case aside) kept at its first place only, up to the first model that answers, each failing one
// asked its retry budget's worth; a hex id is kept as spelt, as the gateway matches it exactly.
func TestFallbackEachModelOnceProperty(t *testing.T) {
	t.Parallel()
	names := []string{"a", "A", "b", "c", "C", "", "0xab", "0xAB"}
	sameModel := func(m string) string {
		if strings.HasPrefix(m, "0x") {
			return m
		}
		return strings.ToLower(m)
	}
	rng := rand.New(rand.NewPCG(11, 41))
	for iter := range 80 {
		list := make([]string, 1+rng.IntN(7))
		for i := range list {
			list[i] = names[rng.IntN(len(names))]
		}
		answering := sameModel(names[rng.IntN(len(names))])
		scripts := map[string]modelScript{}
		for _, m := range names {
			if sameModel(m) != answering {
				scripts[m] = failStatus(502)
			}
		}
		retries := rng.IntN(2)
		var want []string
		seen := map[string]bool{}
		for _, m := range list {
			if seen[sameModel(m)] {
				continue
			}
			seen[sameModel(m)] = true
			if sameModel(m) == answering {
				want = append(want, m)
				break
			}
			for range retries + 1 {
				want = append(want, m)
			}
		}
		stream := rng.IntN(2) == 1
		g, srv := newModelGateway(t, scripts)
		c := fallbackClient(t, srv.URL, infergate.WithMaxRetries(retries), infergate.WithFallbackModels(list[1:]...))
		req := infergate.ChatRequest{Model: list[0], Messages: []infergate.Message{infergate.UserMessage("hi")}}
		var err error
		if stream {
			var st *infergate.ChatStream
			if st, err = c.Chat.Stream(context.Background(), req); err == nil {
				for st.Next() {
				}
				err = st.Err()
				st.Close()
			}
		} else {
			_, err = c.Chat.Create(context.Background(), req)
		}
		name := fmt.Sprintf("%d: list %q, %q answers, %d retries, stream=%v", iter, list, answering, retries, stream)
		if asked := g.requested(); !slices.Equal(asked, want) {
			t.Errorf("%s: asked %q, want %q", name, asked, want)
		}
		if served := seen[answering]; served != (err == nil) {
			t.Errorf("%s: err %v", name, err)
		}
	}
}
