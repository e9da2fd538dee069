// Package temporalinfergatetest runs temporalinfergate's activities on a fake gateway
// (gatewaytest), for tests of workflows in Temporal's test environment (go.temporal.io/sdk/testsuite):
//
//	env := new(testsuite.WorkflowTestSuite).NewTestWorkflowEnvironment()
//	gw := temporalinfergatetest.Register(t, env, []*infergate.FuncTool{weather})
//	gw.Enqueue(gatewaytest.Reply{ToolCalls: ...}, gatewaytest.Reply{Content: "Sunny."})
//	env.ExecuteWorkflow(myWorkflow, input)
//
// The fake's replies are scripted with Server.Enqueue, its failures injected with Server.FailNext,
// and every request it received is recorded, as in any test on gatewaytest.
package temporalinfergatetest

import (
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/temporalinfergate"
	"go.temporal.io/sdk/worker"
)

// Register starts a fake gateway for the test (gatewaytest.New, closed when the test ends) and
// registers with r (a *testsuite.TestWorkflowEnvironment, or a worker) the activities of a client
// of it, with tools; it returns the fake, to script its answers. A nil tool or a name given twice
// fails the test.
func Register(t testing.TB, r worker.ActivityRegistry, tools []*infergate.FuncTool, opts ...gatewaytest.ServerOption) *gatewaytest.Server {
	t.Helper()
	gw := gatewaytest.New(t, opts...)
	acts, err := temporalinfergate.NewActivities(gw.Client(), tools...)
	if err != nil {
		t.Fatal(err)
	}
	acts.Register(r)
	return gw
}
