package temporalinfergate_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/temporalinfergate"
	"github.com/infergate/infergate-go/temporalinfergate/temporalinfergatetest"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"
)

func chatWorkflow(stream bool) func(workflow.Context, infergate.ChatRequest) (string, error) {
	return func(ctx workflow.Context, req infergate.ChatRequest) (string, error) {
		ctx = workflow.WithActivityOptions(ctx, activityOptions)
		chat := temporalinfergate.Chat
		if stream {
			chat = temporalinfergate.StreamChat
		}
		out, err := chat(ctx, req)
		if err != nil {
			return "", err
		}
		return out.Text(), nil
	}
}

// Temporal retries a rate-limited call after the Retry-After the gateway sent, not after its
// own backoff; a request the gateway refuses as wrong is not retried. The SDK's own retries are
// off: each activity attempt is one request.
func TestChatActivityRetries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		reply    gatewaytest.ErrorReply
		attempts int           // activity attempts, one request each
		gap      time.Duration // between the first two attempts
		answered bool
	}{
		{"429 after its Retry-After", gatewaytest.RateLimitErrorReply(30 * time.Second), 2, 30 * time.Second, true},
		{"400 not retried", gatewaytest.DetailErrorReply(400, "bad request"), 1, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t)
			gw := temporalinfergatetest.Register(t, env, nil)
			gw.FailNext(1, tc.reply)
			var starts []time.Time
			env.SetOnActivityStartedListener(func(*activity.Info, context.Context, converter.EncodedValues) {
				starts = append(starts, env.Now())
			})
			env.ExecuteWorkflow(chatWorkflow(false), question("hi"))
			var answer string
			err := env.GetWorkflowResult(&answer)
			if (err == nil) != tc.answered || len(starts) != tc.attempts || len(gw.Requests()) != tc.attempts {
				t.Fatalf("err = %v, %d attempts, %d requests; want %d", err, len(starts), len(gw.Requests()), tc.attempts)
			}
			if tc.attempts > 1 {
				if gap := starts[1].Sub(starts[0]); gap != tc.gap {
					t.Errorf("retried after %s, want %s", gap, tc.gap)
				}
				// Both attempts are one request to a gateway that honours the key.
				first, second := gw.Requests()[0].Header.Get("Idempotency-Key"), gw.Requests()[1].Header.Get("Idempotency-Key")
				if !strings.HasPrefix(first, "temporal-") || first != second {
					t.Errorf("Idempotency-Key %q, then %q", first, second)
				}
				return
			}
			api, ok := temporalinfergate.APIErrorOf(err)
			if !ok || api.StatusCode != tc.reply.Status {
				t.Errorf("APIErrorOf(%v) = %+v, %v", err, api, ok)
			}
		})
	}
}

// The streamed chat turn heartbeats as its chunks arrive, with the count so far, and returns the
// completion they make.
func TestStreamChatHeartbeatsPerChunk(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	gw := temporalinfergatetest.Register(t, env, nil)
	gw.Enqueue(gatewaytest.Reply{Chunks: []string{"It ", "is ", "sunny ", "in ", "Rome."}})
	var beats []int
	env.SetOnActivityHeartbeatListener(func(_ *activity.Info, details converter.EncodedValues) {
		var n int
		if err := details.Get(&n); err != nil {
			t.Error(err)
		}
		beats = append(beats, n)
	})
	env.ExecuteWorkflow(chatWorkflow(true), question("weather?"))
	var answer string
	if err := env.GetWorkflowResult(&answer); err != nil || answer != "It is sunny in Rome." {
		t.Fatalf("answer %q, err %v", answer, err)
	}
	// The first heartbeat goes out at the first chunk; Temporal's client throttles the next ones
	// (to one per 80% of HeartbeatTimeout), so the listener sees those that got through, counting up.
	if len(beats) == 0 || beats[0] != 1 || !slices.IsSorted(beats) {
		t.Errorf("heartbeats %v", beats)
	}
}

// The Idempotency-Key is made of the workflow's and the activity's ids, which may hold any text
// and be long: the key is short printable ASCII whatever they hold, and the call is sent.
func TestIdempotencyKeyOfAnyWorkflowID(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"order\n17", "commande-é-" + strings.Repeat("x", 900)} {
		env := newEnv(t)
		env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: id})
		gw := temporalinfergatetest.Register(t, env, nil)
		env.ExecuteWorkflow(chatWorkflow(false), question("hi"))
		var answer string
		if err := env.GetWorkflowResult(&answer); err != nil || len(gw.Requests()) != 1 {
			t.Fatalf("workflow %q: err %v, %d requests", id, err, len(gw.Requests()))
		}
		key := gw.Requests()[0].Header.Get("Idempotency-Key")
		if len(key) < len("temporal-")+32 || len(key) > 80 || strings.IndexFunc(key, func(r rune) bool { return r < '!' || r > '~' }) >= 0 {
			t.Errorf("workflow %q: Idempotency-Key %q", id, key)
		}
	}
}
