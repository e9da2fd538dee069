// Package temporalinfergate runs the gateway's calls and tool loops on Temporal
// (go.temporal.io/sdk), so that an agent outlives the process that started it: a deploy, a crash
// or a decision that takes until tomorrow loses nothing, and what the loop spent keeps counting.
//
// On the worker, the activities are registered from a client that holds the credentials, which
// never enter a workflow's history:
//
//	client, err := infergate.NewClient(infergate.WithAPIKey(os.Getenv("INFERGATE_API_KEY")))
//	acts, err := temporalinfergate.NewActivities(client, lookup, refund) // the tools, by name
//	w := worker.New(temporalClient, "agents", worker.Options{})
//	acts.Register(w)
//	w.RegisterWorkflow(Agent)
//
// In a workflow, a chat turn (Chat, StreamChat), embeddings (Embeddings) and a tool call (CallTool)
// are activities; RunTools is a whole tool loop, each model turn and each tool call an activity of
// its own:
//
//	func Agent(ctx workflow.Context, question string) (string, error) {
//		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
//			StartToCloseTimeout: 5 * time.Minute, HeartbeatTimeout: 30 * time.Second})
//		res, err := temporalinfergate.RunTools(ctx, infergate.ChatRequest{Model: "llama-3.3-70b",
//			Messages: []infergate.Message{infergate.UserMessage(question)}},
//			temporalinfergate.ToolLoop{Tools: []string{"lookup", "refund"}, DeferTools: []string{"refund"}, MaxCost: budget})
//		if err != nil {
//			return "", err
//		}
//		return res.Answer.Text(), nil
//	}
//
// A call RunTools defers waits, as long as it takes, for the signal SignalToolOutcome carrying its
// infergate.ToolOutcome (SendOutcome sends it; QueryPendingToolCalls lists the calls waiting).
//
// The loop is infergate's own: each turn activity runs ChatService.RunTools, then ResumeTools on
// the infergate.ToolLoopState the last turn returned, with every call deferred to the workflow.
// The state (transcript, turns, tokens and spend counted against the loop's bounds) is each turn's
// result, kept in the workflow's history; so the bounds hold across workers and restarts, and a
// worker that replays the workflow does not run a completed tool call again.
//
// Activities call the gateway without the SDK's own retries (WithMaxRetries(0)): Temporal retries
// them, by the activity's retry policy. Their errors are *temporal.ApplicationError values whose
// type (the ErrorType constants) and retryability say what can pass: 408, 409, 429 (retried after
// its Retry-After, as the error's NextRetryDelay), 5xx, a call that got no answer and a stream cut
// short are retried, as is an error event inside a stream unless the status it carries is one of
// those that follow; 400, 401, 402, 403, 404, 422 and other client errors, a balance spent, a
// request refused before it was sent (*infergate.ValidationError), one too long for the model's
// context window and a bound of the loop reached are not; with WithFallbackModels, an activity is
// retried when one of its models' errors would be. The *infergate.APIError is in the details: APIErrorOf reads
// it in the workflow.
//
// Package temporalinfergatetest registers the activities on a fake gateway (gatewaytest), for
// tests of workflows in Temporal's test environment.
package temporalinfergate
