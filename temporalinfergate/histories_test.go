package temporalinfergate_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/temporalinfergate"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/proto"
)

// historiesDir holds histories of runs recorded on a real Temporal server, one JSON file per
// workflow of recordedLoops, named after it (TestRecordHistories, with the e2e tag, writes them).
const historiesDir = "testdata/histories"

// recordedLoops are the loops whose runs are recorded, by workflow name: a turn whose three calls
// run in parallel, a deferred call answered by a signal, and a loop that reaches MaxSteps.
var recordedLoops = map[string]temporalinfergate.ToolLoop{
	"history.parallel": {Tools: []string{"weather"}},
	"history.deferred": {Tools: []string{"lookup", "refund"}, DeferTools: []string{"refund"}},
	"history.bound":    {Tools: []string{"lookup"}, MaxSteps: 2},
}

// registerRecorded registers a workflow for each of loops, under its name: RunTools on the
// question it is given, which returns the answer, or the bound reached.
func registerRecorded(r worker.WorkflowRegistry, loops map[string]temporalinfergate.ToolLoop) {
	for name, loop := range loops {
		r.RegisterWorkflowWithOptions(func(ctx workflow.Context, text string) (string, error) {
			ctx = workflow.WithActivityOptions(ctx, activityOptions)
			res, err := temporalinfergate.RunTools(ctx, question(text), loop)
			if limit, ok := errors.AsType[*infergate.ToolLimitError](err); ok {
				return "bound reached: " + string(limit.Limit), nil
			}
			if err != nil {
				return "", err
			}
			return res.Answer.Text(), nil
		}, workflow.RegisterOptions{Name: name})
	}
}

// Every recorded history, replayed by Temporal's replayer against the workflow that made it, gives
// the same commands, and each activity the same input as the history's: the loop is deterministic
// on what a real server records. (The replayer compares the commands' types and ids, not their
// inputs: a turn's calls scheduled in another order would pass it, each given another call's
// result.) Replayed against a loop that runs the call the recording deferred, the deferred history
// does not, which shows the replayer compares.
func TestRecordedHistoriesReplay(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(historiesDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(recordedLoops) {
		t.Fatalf("%d histories in %s, %v; want one for each of %d workflows", len(files), historiesDir, files, len(recordedLoops))
	}
	replay := func(loops map[string]temporalinfergate.ToolLoop, file string) error {
		var mu sync.Mutex
		var scheduled []scheduledActivity
		replayer, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{
			Interceptors: []interceptor.WorkerInterceptor{&scheduleRecorder{onSchedule: func(typ string, args []any) {
				mu.Lock()
				defer mu.Unlock()
				scheduled = append(scheduled, scheduledActivity{typ, args})
			}}},
		})
		if err != nil {
			return err
		}
		registerRecorded(replayer, loops)
		// The replayer logs the workflow's panic on a history it does not match: the error says it.
		if err := replayer.ReplayWorkflowHistoryFromJSONFile(log.NewStructuredLogger(slog.New(slog.DiscardHandler)), file); err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		return sameInputs(file, scheduled)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			if _, ok := recordedLoops[strings.TrimSuffix(filepath.Base(file), ".json")]; !ok {
				t.Fatalf("%s is the history of no workflow of recordedLoops", file)
			}
			if err := replay(recordedLoops, file); err != nil {
				t.Fatalf("replaying %s: %v", file, err)
			}
		})
	}
	changed := map[string]temporalinfergate.ToolLoop{}
	for name, loop := range recordedLoops {
		loop.DeferTools = nil
		changed[name] = loop
	}
	// TMPRL1100 is Temporal's code for a workflow that did not do what its history says.
	if err := replay(changed, filepath.Join(historiesDir, "history.deferred.json")); err == nil || !strings.Contains(err.Error(), "TMPRL1100") {
		t.Fatalf("replaying against a loop that runs the deferred call: err = %v", err)
	}
}

// The recorded histories hold no credential: the workers' client sent the fake gateway's API key
// in an Authorization header, which stays in the activities.
func TestRecordedHistoriesHoldNoCredential(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(historiesDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no history in %s", historiesDir)
	}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(raw); n > 64<<10 {
			t.Errorf("%s is %d bytes; keep a recorded history under 64 KiB", file, n)
		}
		h, err := client.HistoryFromJSON(bytes.NewReader(raw), client.HistoryJSONOptions{})
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(h.Events) == 0 {
			t.Fatalf("%s has no event", file)
		}
		// The binary form holds every payload's bytes as they are, whichever way the JSON
		// spells them (base64, or the shorthand of JSON payloads).
		bin, err := proto.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		if err := holdsCredential(raw); err != nil {
			t.Errorf("%s: %v", file, err)
		}
		if err := holdsCredential(bin); err != nil {
			t.Errorf("%s, its payloads: %v", file, err)
		}
	}
}

// holdsCredential says whether b holds the fake gateway's API key or an Authorization header.
func holdsCredential(b []byte) error {
	lower := bytes.ToLower(b)
	for _, secret := range []string{strings.ToLower(gatewaytest.DefaultAPIKey), "authorization", "bearer "} {
		if bytes.Contains(lower, []byte(secret)) {
			return errors.New("holds " + secret)
		}
	}
	return nil
}

// scheduledActivity is an activity a replayed workflow scheduled.
type scheduledActivity struct {
	activityType string
	args         []any
}

// sameInputs says whether scheduled are, in order, the activities the history in file scheduled,
// of the same types and inputs (compared as JSON values).
func sameInputs(file string, scheduled []scheduledActivity) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	h, err := client.HistoryFromJSON(bytes.NewReader(raw), client.HistoryJSONOptions{})
	if err != nil {
		return err
	}
	dc := converter.GetDefaultDataConverter()
	i := 0
	for _, e := range h.Events {
		attrs := e.GetActivityTaskScheduledEventAttributes()
		if attrs == nil {
			continue
		}
		if i >= len(scheduled) {
			return fmt.Errorf("the replay scheduled %d activities; the history, more", len(scheduled))
		}
		got := scheduled[i]
		i++
		if got.activityType != attrs.GetActivityType().GetName() {
			return fmt.Errorf("activity %d: the replay scheduled %s, the history %s", i, got.activityType, attrs.GetActivityType().GetName())
		}
		replayed, err := dc.ToPayloads(got.args...)
		if err != nil {
			return err
		}
		if want, have := jsonValues(attrs.GetInput()), jsonValues(replayed); !reflect.DeepEqual(want, have) {
			return fmt.Errorf("activity %d (%s): the replay's input %v, the history's %v", i, got.activityType, have, want)
		}
	}
	if i != len(scheduled) {
		return fmt.Errorf("the replay scheduled %d activities; the history %d", len(scheduled), i)
	}
	return nil
}

// jsonValues decodes each of p's payloads as a JSON value; one that is not JSON is its bytes.
func jsonValues(p *commonpb.Payloads) []any {
	var vs []any
	for _, payload := range p.GetPayloads() {
		var v any
		if json.Unmarshal(payload.GetData(), &v) != nil {
			v = payload.GetData()
		}
		vs = append(vs, v)
	}
	return vs
}
