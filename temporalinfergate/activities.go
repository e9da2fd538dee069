package temporalinfergate

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	infergate "github.com/infergate/infergate-go"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"
)

// The names Activities.Register gives the activities, which workflows execute them by.
const (
	ChatActivity       = "infergate.Chat"       // Activities.Chat: a chat turn
	StreamChatActivity = "infergate.StreamChat" // Activities.StreamChat: a streamed chat turn, heartbeating
	EmbeddingsActivity = "infergate.Embeddings" // Activities.Embeddings
	ToolActivity       = "infergate.CallTool"   // Activities.CallTool: one tool call
	ToolTurnActivity   = "infergate.ToolTurn"   // Activities.ToolTurn: one model turn of RunTools
)

// noRetries turns the SDK's own retries off in every call an activity makes: Temporal retries the
// activity, by its retry policy, with the delay the classified error asks for.
var noRetries = infergate.WithMaxRetries(0)

// once gives every attempt of the activity the same Idempotency-Key, as the SDK gives its own
// retries of a call, so that a gateway that honours it runs and bills the request once, however
// often Temporal retries. Only for activities that make one request: the key is the activity's.
// The ids are hashed, as a workflow's id may be long and hold any text, which a header cannot.
func once(ctx context.Context) infergate.Option {
	info := activity.GetInfo(ctx)
	sum := sha256.New()
	for _, id := range []string{info.WorkflowNamespace, info.WorkflowExecution.ID, info.WorkflowExecution.RunID, info.ActivityID} {
		sum.Write(binary.AppendUvarint(nil, uint64(len(id)))) // so that no two lists of ids run together
		sum.Write([]byte(id))
	}
	return infergate.WithHeader("Idempotency-Key", "temporal-"+hex.EncodeToString(sum.Sum(nil)[:16]))
}

// Activities are the gateway's calls as Temporal activities, run by a worker with its own client:
// the client's credentials stay on the worker and never enter a workflow's history, which holds
// only the activities' inputs and results (requests, answers, tool calls). Each call is made
// without the SDK's retries, since Temporal retries the activity; its error is classified (see
// the ErrorType constants) so that Temporal retries what may pass and not what cannot. Every
// attempt of Chat, StreamChat and Embeddings sends the same Idempotency-Key, a hash of the
// workflow's and the activity's ids, as the SDK's own retries of a call do.
type Activities struct {
	client *infergate.Client
	tools  map[string]*infergate.FuncTool
	names  []string
}

// NewActivities returns the activities of client, with the tools that CallTool and RunTools' turns
// may use, by name. A nil client, a nil tool or a name given twice is a *infergate.ValidationError.
func NewActivities(client *infergate.Client, tools ...*infergate.FuncTool) (*Activities, error) {
	if client == nil {
		return nil, &infergate.ValidationError{Field: "client", Reason: "is nil"}
	}
	a := &Activities{client: client, tools: make(map[string]*infergate.FuncTool, len(tools))}
	for i, t := range tools {
		field := fmt.Sprintf("tools[%d]", i)
		switch {
		case t == nil:
			return nil, &infergate.ValidationError{Field: field, Reason: "is nil"}
		case a.tools[t.Name()] != nil:
			return nil, &infergate.ValidationError{Field: field, Reason: fmt.Sprintf("tool %q is given twice", t.Name())}
		}
		a.tools[t.Name()] = t
		a.names = append(a.names, t.Name())
	}
	return a, nil
}

// Register registers the activities with a worker (or a test environment) under their names:
// ChatActivity, StreamChatActivity, EmbeddingsActivity, ToolActivity and ToolTurnActivity.
func (a *Activities) Register(r worker.ActivityRegistry) {
	for name, fn := range map[string]any{ChatActivity: a.Chat, StreamChatActivity: a.StreamChat,
		EmbeddingsActivity: a.Embeddings, ToolActivity: a.CallTool, ToolTurnActivity: a.ToolTurn} {
		r.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
}

// Chat sends a chat turn (ChatService.Create) and returns the answer.
func (a *Activities) Chat(ctx context.Context, in ChatInput) (*infergate.ChatCompletion, error) {
	out, err := a.client.Chat.Create(ctx, in.ChatRequest(), noRetries, once(ctx))
	if err != nil {
		return nil, classify(ctx, err)
	}
	return out, nil
}

// StreamChat streams a chat turn (ChatService.Stream) and returns the completion its chunks
// make. It heartbeats as chunks arrive, with the number received so far, so that a stream that
// stalls is noticed by the activity's HeartbeatTimeout, which should then be set; a stream that
// ends before the model finished fails it, and Temporal retries it from the start.
func (a *Activities) StreamChat(ctx context.Context, in ChatInput) (*infergate.ChatCompletion, error) {
	stream, err := a.client.Chat.Stream(ctx, in.ChatRequest(), noRetries, once(ctx))
	if err != nil {
		return nil, classify(ctx, err)
	}
	defer stream.Close()
	chunks := 0
	for stream.Next() {
		chunks++
		activity.RecordHeartbeat(ctx, chunks)
	}
	if err := stream.Err(); err != nil {
		return nil, classify(ctx, err)
	}
	return stream.Completion(), nil
}

// Embeddings returns the vectors of the request's texts (EmbeddingsService.Create).
func (a *Activities) Embeddings(ctx context.Context, in EmbeddingsInput) (*infergate.EmbeddingResponse, error) {
	out, err := a.client.Embeddings.Create(ctx, in.EmbeddingRequest(), noRetries, once(ctx))
	if err != nil {
		return nil, classify(ctx, err)
	}
	return out, nil
}

// ToolCallResult is what came of one tool call.
type ToolCallResult struct {
	CallID string `json:"call_id"` // the call's ToolCall.ID
	// Output is what the model reads: the tool's result, or, when the call failed, the text
	// infergate.ToolError.Feedback gives it, as in ChatService.RunTools.
	Output string `json:"output"`
	// Error is the failure's text (the *infergate.ToolError's Error) when the call failed: the
	// arguments did not match the tool's schema, the tool returned an error or panicked.
	Error string `json:"error,omitempty"`
}

// CallTool runs one call of a tool given to NewActivities, its arguments checked against the tool's
// schema first, with the activity's context (a long tool may heartbeat with it). A failure of the
// call is its result, which the model reads, as in ChatService.RunTools; only a tool the worker
// does not have (a non-retryable ErrorTypeRefused) and the activity's own cancellation fail the
// activity.
func (a *Activities) CallTool(ctx context.Context, call infergate.ToolCall) (ToolCallResult, error) {
	tool := a.tools[call.Function.Name]
	if tool == nil {
		return ToolCallResult{}, fail(fmt.Errorf("temporalinfergate: the worker has no tool %q; it has %q", call.Function.Name, a.names),
			ErrorTypeRefused, true, 0)
	}
	out, err := tool.Call(ctx, call.Function.Arguments)
	if err == nil {
		return ToolCallResult{CallID: call.ID, Output: out}, nil
	}
	if ctx.Err() != nil {
		return ToolCallResult{}, ctx.Err()
	}
	res := ToolCallResult{CallID: call.ID, Output: err.Error(), Error: err.Error()}
	var te *infergate.ToolError
	if errors.As(err, &te) {
		res.Output = te.Feedback()
	}
	return res, nil
}
