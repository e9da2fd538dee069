package benchmarks

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/infergate/infergate-go"
)

// infergateClient is this SDK, used as its README shows.
type infergateClient struct{ client *infergate.Client }

func newInfergate(tb testing.TB, baseURL string, hc *http.Client) contender {
	client, err := infergate.NewClient(
		infergate.WithAPIKey("sk-bench"),
		infergate.WithBaseURL(baseURL),
		infergate.WithHTTPClient(hc),
		infergate.WithMaxRetries(0),
	)
	if err != nil {
		tb.Fatal(err)
	}
	return &infergateClient{client: client}
}

var infergateRequest = infergate.ChatRequest{
	Model:    chatModel,
	Messages: []infergate.Message{infergate.UserMessage(chatPrompt)},
}

func (c *infergateClient) streamText(ctx context.Context) (streamResult, error) {
	stream, err := c.client.Chat.Stream(ctx, infergateRequest)
	if err != nil {
		return streamResult{}, err
	}
	defer stream.Close()
	var text strings.Builder
	var res streamResult
	for stream.Next() {
		if delta := stream.Current().Text(); delta != "" {
			text.WriteString(delta)
			res.chunks++
		}
	}
	res.text = text.String()
	return res, stream.Err()
}

// streamTool reassembles the call with Completion, which the stream keeps up to date as it reads.
func (c *infergateClient) streamTool(ctx context.Context) (streamResult, error) {
	stream, err := c.client.Chat.Stream(ctx, infergateRequest)
	if err != nil {
		return streamResult{}, err
	}
	defer stream.Close()
	var res streamResult
	for stream.Next() {
		if chunk := stream.Current(); len(chunk.Choices) > 0 && len(chunk.Choices[0].Delta.ToolCalls) > 0 {
			res.chunks++
		}
	}
	if err := stream.Err(); err != nil {
		return res, err
	}
	if calls := stream.Completion().Choices[0].Message.ToolCalls; len(calls) > 0 {
		res.id, res.name, res.args = calls[0].ID, calls[0].Function.Name, calls[0].Function.Arguments
	}
	return res, nil
}

// firstDelta tells the server the stream is open once its headers arrive: Stream itself returns only
// with the first delta, which it waits for so that a stream failing before it can be sent again.
func (c *infergateClient) firstDelta(ctx context.Context, opened, received func()) (string, error) {
	stream, err := c.client.Chat.Stream(ctx, infergateRequest, infergate.WithMiddleware(
		func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
			resp, err := next(req)
			if err == nil {
				opened()
			}
			return resp, err
		}))
	if err != nil {
		return "", err
	}
	defer stream.Close()
	if !stream.Next() {
		return "", stream.Err()
	}
	received()
	first := stream.Current().Text()
	for stream.Next() {
	}
	return first, stream.Err()
}

func (c *infergateClient) complete(ctx context.Context) (string, error) {
	resp, err := c.client.Chat.Create(ctx, infergateRequest)
	if err != nil {
		return "", err
	}
	return resp.Text(), nil
}

func (c *infergateClient) completeCall(ctx context.Context) (string, error) {
	resp, err := c.client.Chat.Create(ctx, infergateRequest)
	if err != nil {
		return "", err
	}
	calls := resp.ToolCalls()
	if len(calls) == 0 {
		return "", errors.New("no tool call")
	}
	return calls[0].Function.Arguments, nil
}

// infergateHistory is history in infergate's types, as a program keeping a conversation holds it.
var infergateHistory = func() infergate.ChatRequest {
	req := infergate.ChatRequest{Model: chatModel}
	for _, h := range history {
		m := infergate.Message{Role: infergate.Role(h.role), Content: h.content, ToolCallID: h.toolCallID}
		if h.callID != "" {
			m.ToolCalls = []infergate.ToolCall{{ID: h.callID, Type: "function",
				Function: infergate.FunctionCall{Name: h.callName, Arguments: h.callArgs}}}
		}
		req.Messages = append(req.Messages, m)
	}
	return req
}()

func (c *infergateClient) sendHistory(ctx context.Context) (string, error) {
	resp, err := c.client.Chat.Create(ctx, infergateHistory)
	if err != nil {
		return "", err
	}
	return resp.Text(), nil
}

func (c *infergateClient) listModels(ctx context.Context) ([]string, error) {
	models, err := c.client.Models.List(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(models))
	for i, m := range models {
		ids[i] = m.ID
	}
	return ids, nil
}

func (c *infergateClient) transcribe(ctx context.Context, audio io.Reader) (string, error) {
	resp, err := c.client.Audio.Transcribe(ctx, infergate.TranscriptionRequest{
		File:     audio,
		FileName: audioName,
		Model:    sttModel,
	})
	if err != nil {
		return "", err
	}
	return resp.Text, nil
}
