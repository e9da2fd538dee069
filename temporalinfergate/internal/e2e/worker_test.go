//go:build e2e

package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/temporalinfergate"
	"github.com/infergate/infergate-go/temporalinfergate/internal/devserver"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// A worker is a process of its own, the test binary again: TestMain sends a process whose
// environment has workerEnv (workerParams in JSON) to runWorker instead of the tests. It prints
// readyLine once it polls its task queue, and runs until it is killed or interrupted.
const (
	workerEnv = "INFERGATE_TEMPORAL_WORKER"
	readyLine = "worker-ready"
)

// The workflows the workers run, by name.
const (
	loopWorkflowName  = "e2e.Loop"
	deferWorkflowName = "e2e.Defer"
)

// workerParams is what a worker process is told.
type workerParams struct {
	HostPort  string // the Temporal server's frontend
	TaskQueue string
	Gateway   string // the fake gateway's URL
	Tools     string // the URL of the tool service the note tool reports to
}

// loopReport is what the workflows return: how RunTools ended.
type loopReport struct {
	Answer string
	Steps  int
	Usage  infergate.Usage
	Limit  infergate.ToolLimit // the bound reached, if one was
}

// runWorker is a worker process's whole life; it returns the exit code.
func runWorker(env string) int {
	var p workerParams
	if err := json.Unmarshal([]byte(env), &p); err != nil {
		fmt.Fprintln(os.Stderr, "worker: bad parameters:", err)
		return 2
	}
	if err := serve(p); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 2
	}
	return 0
}

func serve(p workerParams) error {
	c, err := client.Dial(client.Options{HostPort: p.HostPort, Namespace: devserver.Namespace, Logger: devserver.QuietLogger()})
	if err != nil {
		return err
	}
	defer c.Close()
	// The worker's credentials: they stay in this process, never in the workflows' history.
	gw, err := infergate.NewClient(infergate.WithBaseURL(p.Gateway), infergate.WithAPIKey(gatewaytest.DefaultAPIKey))
	if err != nil {
		return err
	}
	tools, err := workerTools(p.Tools)
	if err != nil {
		return err
	}
	acts, err := temporalinfergate.NewActivities(gw, tools...)
	if err != nil {
		return err
	}
	w := worker.New(c, p.TaskQueue, worker.Options{})
	acts.Register(w)
	w.RegisterWorkflowWithOptions(loopWorkflow, workflow.RegisterOptions{Name: loopWorkflowName})
	w.RegisterWorkflowWithOptions(deferWorkflow, workflow.RegisterOptions{Name: deferWorkflowName})
	if err := w.Start(); err != nil {
		return err
	}
	fmt.Println(readyLine)
	<-worker.InterruptCh()
	w.Stop()
	return nil
}

// noteArgs are the note tool's arguments: the id of the note, which names the call.
type noteArgs struct {
	ID string `json:"id"`
}

// workerTools are note, which tells the tool service at tools when it starts and when it is done
// (the service may hold a start, to keep a call in flight), and refund, which the deferred
// workflow never runs.
func workerTools(tools string) ([]*infergate.FuncTool, error) {
	report := func(ctx context.Context, what, id string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, tools+"/"+what+"?id="+url.QueryEscape(id), nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			return fmt.Errorf("tool service: %s", resp.Status)
		}
		return nil
	}
	note, err := infergate.NewTool("note", "Notes an id.", func(ctx context.Context, in noteArgs) (string, error) {
		if err := report(ctx, "start", in.ID); err != nil {
			return "", err
		}
		if err := report(ctx, "done", in.ID); err != nil {
			return "", err
		}
		return "noted " + in.ID, nil
	})
	if err != nil {
		return nil, err
	}
	refund, err := infergate.NewTool("refund", "Refunds an order.", func(ctx context.Context, in noteArgs) (string, error) {
		return "", errors.New("refunds are decided by a person")
	})
	if err != nil {
		return nil, err
	}
	return []*infergate.FuncTool{note, refund}, nil
}

// Activity options of the workflows. A tool call's attempt that a killed worker took is tried
// again once its StartToCloseTimeout has passed: short, so that the test does not wait long, and
// far above what a note takes.
var (
	turnOptions = workflow.ActivityOptions{StartToCloseTimeout: 2 * time.Minute, HeartbeatTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 100 * time.Millisecond}}
	toolOptions = workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 100 * time.Millisecond}}
)

// loopWorkflow runs a tool loop of note calls, at most three model turns.
func loopWorkflow(ctx workflow.Context, question string) (loopReport, error) {
	return report(temporalinfergate.RunTools(ctx, infergate.ChatRequest{
		Model:    "llama-3.3-70b",
		Messages: []infergate.Message{infergate.UserMessage(question)},
	}, temporalinfergate.ToolLoop{Tools: []string{"note"}, MaxSteps: 3, TurnOptions: &turnOptions, ToolOptions: &toolOptions}))
}

// deferWorkflow runs a tool loop whose refunds wait for a person's decision.
func deferWorkflow(ctx workflow.Context, question string) (loopReport, error) {
	return report(temporalinfergate.RunTools(ctx, infergate.ChatRequest{
		Model:    "llama-3.3-70b",
		Messages: []infergate.Message{infergate.UserMessage(question)},
	}, temporalinfergate.ToolLoop{Tools: []string{"note", "refund"}, DeferTools: []string{"refund"},
		TurnOptions: &turnOptions, ToolOptions: &toolOptions}))
}

// report is how a loop ended; a bound reached is a result, not a failure of the workflow.
func report(res *infergate.ToolRunResult, err error) (loopReport, error) {
	var limit *infergate.ToolLimitError
	switch {
	case errors.As(err, &limit):
		return loopReport{Steps: limit.Step, Usage: limit.Usage, Limit: limit.Limit}, nil
	case err != nil:
		return loopReport{}, err
	}
	return loopReport{Answer: res.Answer.Text(), Steps: res.Steps, Usage: res.Usage}, nil
}
