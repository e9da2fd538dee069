package temporalinfergate_test

import (
	"context"
	"os"
	"sync/atomic"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/internal/leakcheck"
	"github.com/infergate/infergate-go/temporalinfergate"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// TestMain fails the run if a test left a goroutine behind.
func TestMain(m *testing.M) { os.Exit(leakcheck.Run(m)) }

// activityOptions are the options every test's workflow runs its activities with: retried
// without end, as Temporal does by default, at once.
var activityOptions = workflow.ActivityOptions{StartToCloseTimeout: time.Minute, HeartbeatTimeout: 10 * time.Second}

func newEnv(t *testing.T) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetTestTimeout(2 * time.Minute)
	return env
}

// counter is a tool that counts its runs and says which city it was asked about.
type counter struct{ runs atomic.Int64 }

func (c *counter) tool(t *testing.T, name string) *infergate.FuncTool {
	t.Helper()
	tool, err := infergate.NewTool(name, "Tells the weather of a city.", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		c.runs.Add(1)
		return name + " of " + in.City + ": sunny", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// loopWorkflow returns a workflow running RunTools on req with loop, under activityOptions.
func loopWorkflow(req infergate.ChatRequest, loop temporalinfergate.ToolLoop) func(workflow.Context) (*infergate.ToolRunResult, error) {
	return func(ctx workflow.Context) (*infergate.ToolRunResult, error) {
		ctx = workflow.WithActivityOptions(ctx, activityOptions)
		return temporalinfergate.RunTools(ctx, req, loop)
	}
}

func question(text string) infergate.ChatRequest {
	return infergate.ChatRequest{Model: "llama-3.3-70b", Messages: []infergate.Message{infergate.UserMessage(text)}}
}
