package einoinfergate

import (
	"context"
	"errors"
	"io"

	"github.com/cloudwego/eino/schema"
)

// StreamToolCallChecker is a StreamToolCallChecker for eino's react.AgentConfig that finds a tool
// call anywhere in the model's streamed answer. eino's default looks at the first message with
// content only, so a model that writes a sentence before its call ("Let me look that up.") has
// that sentence returned as the agent's answer and the tool never runs. This one reads up to the
// first tool call, or to the end of an answer without any; it closes the stream, as eino requires.
//
//	agent, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: chat,
//		ToolsConfig: tools, StreamToolCallChecker: einoinfergate.StreamToolCallChecker})
func StreamToolCallChecker(_ context.Context, sr *schema.StreamReader[*schema.Message]) (bool, error) {
	defer sr.Close()
	for {
		msg, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if msg != nil && len(msg.ToolCalls) > 0 {
			return true, nil
		}
	}
}
