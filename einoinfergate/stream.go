package einoinfergate

import (
	"context"
	"maps"
	"slices"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	infergate "github.com/infergate/infergate-go"
)

// pipeSize is how many messages the stream's goroutine may read ahead of the reader: enough that
// the two seldom wake each other (64 drains a long stream about a sixth faster than 8 did in
// BenchmarkStream), few enough that a reader who stops early leaves little read for nothing.
const pipeSize = 64

// Stream sends the conversation and returns the answer as it arrives, one message per chunk that
// adds something to the first choice: content, reasoning, a fragment of a tool call (with its
// Index, and its ID, type and name on the first fragment), the finish reason; then, once the
// stream has ended, a message that carries the token usage (nil when the answer reported none)
// and, in Extra, the model that answered and those that failed before it (see the package's doc).
// schema.ConcatMessages folds them into the message Generate returns for the same answer, except
// for the reasoning token count, which ConcatMessages does not carry over (the last message and
// the OnEndWithStreamOutput callbacks have it), and for the tool calls' fields, which the last
// message carries under ExtraToolCallFields rather than each call under ExtraFields (either goes
// back the same).
//
// The chunks are read by the SDK's Chat.Stream, which already mends what providers send (placeholder
// "{}" arguments, fragments without ids or indexes, reasoning in its three spellings). A failure
// after the answer began is the reader's last Recv error, the SDK's own (an *infergate.StreamError
// for an error event inside the stream), or an error when the stream ended without any choice;
// one before is Stream's error.
//
// Close the reader when done with it: the goroutine reading the answer then stops at the next
// event the gateway sends, and releases the connection. eino's reader tells no one it was closed,
// so a gateway gone silent holds that goroutine until ctx ends or the client's stream idle timeout
// (infergate.WithStreamTimeouts, two minutes by default) ends the read.
func (m *ChatModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (_ *schema.StreamReader[*schema.Message], err error) {
	if m == nil || m.client == nil {
		return nil, errNoClient
	}
	ctx = callbacks.EnsureRunInfo(ctx, m.GetType(), components.ComponentOfChatModel)
	call := m.newCall(opts)
	ctx = callbacks.OnStart(ctx, call.callbackInput(input))
	defer func() {
		if err != nil {
			callbacks.OnError(ctx, err)
		}
	}()
	req, err := call.request(input)
	if err != nil {
		return nil, err
	}
	var info infergate.ResponseInfo
	s, err := m.client.Chat.Stream(ctx, req, withResponseInfo(m.callOpts, &info)...)
	if err != nil {
		return nil, err
	}
	sr, sw := schema.Pipe[*model.CallbackOutput](pipeSize)
	go pump(s, sw, call.config(), info.Fallbacks)
	_, out := callbacks.OnEndWithStreamOutput(ctx, schema.StreamReaderWithConvert(sr,
		func(o *model.CallbackOutput) (callbacks.CallbackOutput, error) { return o, nil }))
	return schema.StreamReaderWithConvert(out, func(o callbacks.CallbackOutput) (*schema.Message, error) {
		return o.(*model.CallbackOutput).Message, nil
	}), nil
}

// pump forwards the stream's chunks as messages until the stream ends or the reader is closed;
// fallbacks are the models that failed before the one answering.
func pump(s *infergate.ChatStream, sw *schema.StreamWriter[*model.CallbackOutput], cfg *model.Config, fallbacks []infergate.ModelAttempt) {
	defer sw.Close()
	defer s.Close()
	var f follower
	for s.Next() {
		if msg := f.message(s.Current()); msg != nil {
			if sw.Send(&model.CallbackOutput{Message: msg, Config: cfg}, nil) {
				return
			}
		}
	}
	if err := s.Err(); err != nil {
		sw.Send(nil, err)
		return
	}
	c := s.Completion()
	if len(c.Choices) == 0 {
		sw.Send(nil, errNoChoice)
		return
	}
	// The last message is sent even without usage: it gives every answer, an empty one too, the
	// role, the ResponseMeta and the Extra that Generate's has. Extra is on this message alone,
	// as ConcatMessages would join the values of a key that several messages carry.
	msg := &schema.Message{Role: schema.Assistant, ResponseMeta: &schema.ResponseMeta{Usage: tokenUsage(c)},
		Extra: f.fields(c)}
	addServed(msg, c.Model, fallbacks)
	sw.Send(&model.CallbackOutput{Message: msg, Config: cfg, TokenUsage: callbackUsage(msg)}, nil)
}

// follower turns the chunks of one choice into messages: the first choice the stream sends, index
// 0 for the one answer a request asks for.
type follower struct {
	choice  int
	started bool
	calls   map[int]bool // the tool calls begun, by index
}

// fields is the Extra of the last message: the fields of the followed choice's message and calls.
func (f *follower) fields(c *infergate.ChatCompletion) map[string]any {
	for _, ch := range c.Choices {
		if ch.Index == f.choice {
			// The completion's calls are in the order of the indexes the fragments had.
			return streamFields(ch.Message, slices.Sorted(maps.Keys(f.calls)))
		}
	}
	return nil
}

// message is what a chunk adds to the choice; nil when it adds nothing (a chunk of another
// choice, the role alone, the usage chunk). A call's first fragment says its type, "function" when
// the server left it out, as the SDK's completion does.
func (f *follower) message(ch infergate.ChatCompletionChunk) *schema.Message {
	for i := range ch.Choices {
		c := &ch.Choices[i]
		if !f.started {
			f.choice, f.started = c.Index, true
		}
		if c.Index != f.choice {
			continue
		}
		d := &c.Delta
		if d.Content == "" && d.Reasoning == "" && len(d.ToolCalls) == 0 && c.FinishReason == "" {
			return nil
		}
		msg := &schema.Message{Role: schema.Assistant, Content: d.Content, ReasoningContent: d.Reasoning}
		if len(d.ToolCalls) > 0 {
			msg.ToolCalls = make([]schema.ToolCall, len(d.ToolCalls))
			for j, tc := range d.ToolCalls {
				if !f.calls[tc.Index] {
					if f.calls == nil {
						f.calls = make(map[int]bool)
					}
					f.calls[tc.Index] = true
					if tc.Type == "" {
						tc.Type = "function"
					}
				}
				msg.ToolCalls[j] = schema.ToolCall{Index: infergate.Ptr(tc.Index), ID: tc.ID, Type: tc.Type,
					Function: schema.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments}}
			}
		}
		if c.FinishReason != "" {
			msg.ResponseMeta = &schema.ResponseMeta{FinishReason: string(c.FinishReason)}
		}
		return msg
	}
	return nil
}
