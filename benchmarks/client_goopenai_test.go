package benchmarks

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/sashabaranov/go-openai"
)

// goOpenAI is github.com/sashabaranov/go-openai, used as its README shows.
type goOpenAI struct{ client *openai.Client }

func newGoOpenAI(_ testing.TB, baseURL string, hc *http.Client) contender {
	cfg := openai.DefaultConfig("sk-bench")
	cfg.BaseURL = baseURL
	cfg.HTTPClient = hc
	return &goOpenAI{client: openai.NewClientWithConfig(cfg)}
}

func (g *goOpenAI) chatRequest(stream bool) openai.ChatCompletionRequest {
	return openai.ChatCompletionRequest{
		Model:    chatModel,
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: chatPrompt}},
		Stream:   stream,
	}
}

func (g *goOpenAI) streamText(ctx context.Context) (streamResult, error) {
	stream, err := g.client.CreateChatCompletionStream(ctx, g.chatRequest(true))
	if err != nil {
		return streamResult{}, err
	}
	defer stream.Close()
	var text strings.Builder
	var res streamResult
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return res, err
		}
		if len(chunk.Choices) > 0 && chunk.Choices[0].Delta.Content != "" {
			text.WriteString(chunk.Choices[0].Delta.Content)
			res.chunks++
		}
	}
	res.text = text.String()
	return res, nil
}

// streamTool reassembles the call with the plain loop go-openai users write: the library has no
// accumulator.
func (g *goOpenAI) streamTool(ctx context.Context) (streamResult, error) {
	stream, err := g.client.CreateChatCompletionStream(ctx, g.chatRequest(true))
	if err != nil {
		return streamResult{}, err
	}
	defer stream.Close()
	var calls []openai.ToolCall
	var args []strings.Builder
	var res streamResult
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return res, err
		}
		if len(chunk.Choices) == 0 || len(chunk.Choices[0].Delta.ToolCalls) == 0 {
			continue
		}
		res.chunks++
		for _, tc := range chunk.Choices[0].Delta.ToolCalls {
			i := 0
			if tc.Index != nil {
				i = *tc.Index
			}
			for len(calls) <= i {
				calls = append(calls, openai.ToolCall{})
				args = append(args, strings.Builder{})
			}
			if tc.ID != "" {
				calls[i].ID = tc.ID
			}
			if tc.Function.Name != "" {
				calls[i].Function.Name = tc.Function.Name
			}
			args[i].WriteString(tc.Function.Arguments)
		}
	}
	if len(calls) > 0 {
		res.id, res.name, res.args = calls[0].ID, calls[0].Function.Name, args[0].String()
	}
	return res, nil
}

func (g *goOpenAI) firstDelta(ctx context.Context, opened, received func()) (string, error) {
	stream, err := g.client.CreateChatCompletionStream(ctx, g.chatRequest(true))
	if err != nil {
		return "", err
	}
	defer stream.Close()
	opened()
	chunk, err := stream.Recv()
	if err != nil {
		return "", err
	}
	received()
	for {
		if _, err := stream.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return chunk.Choices[0].Delta.Content, err
		}
	}
}

func (g *goOpenAI) complete(ctx context.Context) (string, error) {
	resp, err := g.client.CreateChatCompletion(ctx, g.chatRequest(false))
	if err != nil {
		return "", err
	}
	return resp.Choices[0].Message.Content, nil
}

func (g *goOpenAI) completeCall(ctx context.Context) (string, error) {
	resp, err := g.client.CreateChatCompletion(ctx, g.chatRequest(false))
	if err != nil {
		return "", err
	}
	if len(resp.Choices) == 0 || len(resp.Choices[0].Message.ToolCalls) == 0 {
		return "", errors.New("no tool call")
	}
	return resp.Choices[0].Message.ToolCalls[0].Function.Arguments, nil
}

// goOpenAIObject is what a go-openai user writes for a typed answer: the call with the tool and
// tool_choice that carry the value, then json.Unmarshal of the tool call's arguments into T. With
// a schema it also does what a careful user adds: jsonschema-go validating the arguments, which it
// takes as their JSON value (an object as a map[string]any), before the decode into T. The schema
// is resolved once, by the caller.
func goOpenAIObject[T any](ctx context.Context, client *openai.Client, req openai.ChatCompletionRequest, schema *jsonschema.Resolved) (T, error) {
	var v T
	resp, err := client.CreateChatCompletion(ctx, req)
	if err != nil {
		return v, err
	}
	if len(resp.Choices) == 0 || len(resp.Choices[0].Message.ToolCalls) == 0 {
		return v, errors.New("no tool call")
	}
	args := []byte(resp.Choices[0].Message.ToolCalls[0].Function.Arguments)
	if schema != nil {
		var instance any
		if err := json.Unmarshal(args, &instance); err != nil {
			return v, err
		}
		if err := schema.Validate(instance); err != nil {
			return v, err
		}
	}
	err = json.Unmarshal(args, &v)
	return v, err
}

// goOpenAIObjectRequest asks for the value through one function tool, as GenerateObject does.
func goOpenAIObjectRequest(name string, schema json.RawMessage) openai.ChatCompletionRequest {
	return openai.ChatCompletionRequest{
		Model:    chatModel,
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: chatPrompt}},
		Tools: []openai.Tool{{Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{Name: name, Parameters: schema}}},
		ToolChoice: openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: name}},
	}
}

// goOpenAIHistory is history in go-openai's types.
var goOpenAIHistory = func() openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{Model: chatModel}
	for _, h := range history {
		m := openai.ChatCompletionMessage{Role: h.role, Content: h.content, ToolCallID: h.toolCallID}
		if h.callID != "" {
			m.ToolCalls = []openai.ToolCall{{ID: h.callID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: h.callName, Arguments: h.callArgs}}}
		}
		req.Messages = append(req.Messages, m)
	}
	return req
}()

func (g *goOpenAI) sendHistory(ctx context.Context) (string, error) {
	resp, err := g.client.CreateChatCompletion(ctx, goOpenAIHistory)
	if err != nil {
		return "", err
	}
	return resp.Choices[0].Message.Content, nil
}

func (g *goOpenAI) listModels(ctx context.Context) ([]string, error) {
	list, err := g.client.ListModels(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(list.Models))
	for i, m := range list.Models {
		ids[i] = m.ID
	}
	return ids, nil
}

func (g *goOpenAI) transcribe(ctx context.Context, audio io.Reader) (string, error) {
	resp, err := g.client.CreateTranscription(ctx, openai.AudioRequest{
		Model:    sttModel,
		FilePath: audioName,
		Reader:   audio,
	})
	if err != nil {
		return "", err
	}
	return resp.Text, nil
}
