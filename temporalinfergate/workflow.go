package temporalinfergate

import (
	infergate "github.com/infergate/infergate-go"
	"go.temporal.io/sdk/workflow"
)

// Chat executes ChatActivity with ctx's activity options and returns the answer. An Extra value of
// req that cannot be encoded is a *infergate.ValidationError, and nothing is scheduled.
func Chat(ctx workflow.Context, req infergate.ChatRequest) (*infergate.ChatCompletion, error) {
	return chat(ctx, ChatActivity, req)
}

// StreamChat executes StreamChatActivity with ctx's activity options and returns the completion;
// give the options a HeartbeatTimeout, so that a stream that stalls is noticed.
func StreamChat(ctx workflow.Context, req infergate.ChatRequest) (*infergate.ChatCompletion, error) {
	return chat(ctx, StreamChatActivity, req)
}

func chat(ctx workflow.Context, name string, req infergate.ChatRequest) (*infergate.ChatCompletion, error) {
	in, err := NewChatInput(req)
	if err != nil {
		return nil, err
	}
	var out *infergate.ChatCompletion
	if err := workflow.ExecuteActivity(ctx, name, in).Get(ctx, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Embeddings executes EmbeddingsActivity with ctx's activity options and returns the vectors.
func Embeddings(ctx workflow.Context, req infergate.EmbeddingRequest) (*infergate.EmbeddingResponse, error) {
	in, err := NewEmbeddingsInput(req)
	if err != nil {
		return nil, err
	}
	var out *infergate.EmbeddingResponse
	if err := workflow.ExecuteActivity(ctx, EmbeddingsActivity, in).Get(ctx, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// CallTool executes ToolActivity with ctx's activity options: one call of a tool the workers have.
func CallTool(ctx workflow.Context, call infergate.ToolCall) (ToolCallResult, error) {
	var out ToolCallResult
	err := workflow.ExecuteActivity(ctx, ToolActivity, call).Get(ctx, &out)
	return out, err
}
