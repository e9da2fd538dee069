package benchmarks

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// openAIGo is github.com/openai/openai-go, the official client, used as its README shows.
type openAIGo struct{ client openai.Client }

func newOpenAIGo(_ testing.TB, baseURL string, hc *http.Client) contender {
	return &openAIGo{client: openai.NewClient(
		option.WithAPIKey("sk-bench"),
		option.WithBaseURL(baseURL+"/"),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	)}
}

func (o *openAIGo) chatParams() openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    chatModel,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(chatPrompt)},
	}
}

func (o *openAIGo) streamText(ctx context.Context) (streamResult, error) {
	stream := o.client.Chat.Completions.NewStreaming(ctx, o.chatParams())
	defer stream.Close()
	var text strings.Builder
	var res streamResult
	for stream.Next() {
		chunk := stream.Current()
		if len(chunk.Choices) > 0 && chunk.Choices[0].Delta.Content != "" {
			text.WriteString(chunk.Choices[0].Delta.Content)
			res.chunks++
		}
	}
	res.text = text.String()
	return res, stream.Err()
}

// streamTool uses ChatCompletionAccumulator, the library's own reassembly.
func (o *openAIGo) streamTool(ctx context.Context) (streamResult, error) {
	stream := o.client.Chat.Completions.NewStreaming(ctx, o.chatParams())
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	var res streamResult
	for stream.Next() {
		chunk := stream.Current()
		acc.AddChunk(chunk)
		if len(chunk.Choices) > 0 && len(chunk.Choices[0].Delta.ToolCalls) > 0 {
			res.chunks++
		}
	}
	if err := stream.Err(); err != nil {
		return res, err
	}
	if len(acc.Choices) > 0 && len(acc.Choices[0].Message.ToolCalls) > 0 {
		call := acc.Choices[0].Message.ToolCalls[0]
		res.id, res.name, res.args = call.ID, call.Function.Name, call.Function.Arguments
	}
	return res, nil
}

func (o *openAIGo) firstDelta(ctx context.Context, opened, received func()) (string, error) {
	stream := o.client.Chat.Completions.NewStreaming(ctx, o.chatParams())
	defer stream.Close()
	opened()
	if !stream.Next() {
		return "", stream.Err()
	}
	received()
	first := stream.Current().Choices[0].Delta.Content
	for stream.Next() {
	}
	return first, stream.Err()
}

func (o *openAIGo) complete(ctx context.Context) (string, error) {
	resp, err := o.client.Chat.Completions.New(ctx, o.chatParams())
	if err != nil {
		return "", err
	}
	return resp.Choices[0].Message.Content, nil
}

func (o *openAIGo) completeCall(ctx context.Context) (string, error) {
	resp, err := o.client.Chat.Completions.New(ctx, o.chatParams())
	if err != nil {
		return "", err
	}
	if len(resp.Choices) == 0 || len(resp.Choices[0].Message.ToolCalls) == 0 {
		return "", errors.New("no tool call")
	}
	return resp.Choices[0].Message.ToolCalls[0].Function.Arguments, nil
}

// openAIGoHistory is history in openai-go's types, built with its constructors where it has them.
var openAIGoHistory = func() openai.ChatCompletionNewParams {
	params := openai.ChatCompletionNewParams{Model: chatModel}
	for _, h := range history {
		var m openai.ChatCompletionMessageParamUnion
		switch h.role {
		case "system":
			m = openai.SystemMessage(h.content)
		case "user":
			m = openai.UserMessage(h.content)
		case "tool":
			m = openai.ToolMessage(h.content, h.toolCallID)
		default:
			m = openai.AssistantMessage(h.content)
			m.OfAssistant.ToolCalls = []openai.ChatCompletionMessageToolCallUnionParam{{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: h.callID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: h.callName, Arguments: h.callArgs}},
			}}
		}
		params.Messages = append(params.Messages, m)
	}
	return params
}()

func (o *openAIGo) sendHistory(ctx context.Context) (string, error) {
	resp, err := o.client.Chat.Completions.New(ctx, openAIGoHistory)
	if err != nil {
		return "", err
	}
	return resp.Choices[0].Message.Content, nil
}

func (o *openAIGo) listModels(ctx context.Context) ([]string, error) {
	page, err := o.client.Models.List(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(page.Data))
	for i, m := range page.Data {
		ids[i] = m.ID
	}
	return ids, nil
}

func (o *openAIGo) transcribe(ctx context.Context, audio io.Reader) (string, error) {
	resp, err := o.client.Audio.Transcriptions.New(ctx, openai.AudioTranscriptionNewParams{
		File:  openai.File(audio, audioName, "audio/mpeg"),
		Model: sttModel,
	})
	if err != nil {
		return "", err
	}
	return resp.Text, nil
}
