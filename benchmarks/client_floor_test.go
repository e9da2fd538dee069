package benchmarks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
)

// floor is what a hand-written program needs at the least: net/http, a bufio.Reader over the
// body, and encoding/json into structs that hold only the fields it reads. It handles none of the
// gateway's quirks, retries nothing and checks little: it is the bar, not an alternative.
type floor struct {
	base string
	hc   *http.Client
}

func newFloor(_ testing.TB, baseURL string, hc *http.Client) contender {
	return &floor{base: baseURL, hc: hc}
}

type leanChunk struct {
	Choices []struct {
		Delta struct {
			Content   string `json:"content"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
	} `json:"choices"`
}

type leanRequest struct {
	Model    string        `json:"model"`
	Messages []leanMessage `json:"messages"`
	Stream   bool          `json:"stream,omitempty"`
}

type leanMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type leanHistoryRequest struct {
	Model    string               `json:"model"`
	Messages []leanHistoryMessage `json:"messages"`
}

type leanHistoryMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCalls  []leanToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type leanToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func (f *floor) do(ctx context.Context, method, path, contentType string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, f.base+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer sk-bench")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := f.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("status %s", resp.Status)
	}
	return resp, nil
}

func (f *floor) chat(ctx context.Context, stream bool) (*http.Response, error) {
	body, err := json.Marshal(leanRequest{Model: chatModel, Messages: []leanMessage{{"user", chatPrompt}}, Stream: stream})
	if err != nil {
		return nil, err
	}
	return f.do(ctx, http.MethodPost, "/chat/completions", "application/json", bytes.NewReader(body))
}

// events calls opened once the response has arrived, then each for every data payload until
// [DONE] or the end of the body.
func (f *floor) events(ctx context.Context, opened func(), each func(*leanChunk) error) error {
	resp, err := f.chat(ctx, true)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	opened()
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadSlice('\n')
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		data, ok := bytes.CutPrefix(line, []byte("data: "))
		if !ok {
			continue
		}
		data = bytes.TrimSpace(data)
		if string(data) == "[DONE]" {
			return nil
		}
		var chunk leanChunk
		if err := json.Unmarshal(data, &chunk); err != nil {
			return err
		}
		if err := each(&chunk); err != nil {
			return err
		}
	}
}

func (f *floor) streamText(ctx context.Context) (streamResult, error) {
	var text strings.Builder
	var res streamResult
	err := f.events(ctx, func() {}, func(c *leanChunk) error {
		if len(c.Choices) > 0 && c.Choices[0].Delta.Content != "" {
			text.WriteString(c.Choices[0].Delta.Content)
			res.chunks++
		}
		return nil
	})
	res.text = text.String()
	return res, err
}

// streamTool concatenates fragments naively: it sets the speed bar, not the correctness bar.
func (f *floor) streamTool(ctx context.Context) (streamResult, error) {
	var args strings.Builder
	var res streamResult
	err := f.events(ctx, func() {}, func(c *leanChunk) error {
		if len(c.Choices) == 0 || len(c.Choices[0].Delta.ToolCalls) == 0 {
			return nil
		}
		res.chunks++
		for _, tc := range c.Choices[0].Delta.ToolCalls {
			if tc.Index != 0 {
				continue
			}
			if tc.ID != "" {
				res.id = tc.ID
			}
			if tc.Function.Name != "" {
				res.name = tc.Function.Name
			}
			args.WriteString(tc.Function.Arguments)
		}
		return nil
	})
	res.args = args.String()
	return res, err
}

func (f *floor) firstDelta(ctx context.Context, opened, received func()) (string, error) {
	var first *string
	err := f.events(ctx, opened, func(c *leanChunk) error {
		if first == nil && len(c.Choices) > 0 {
			received()
			first = &c.Choices[0].Delta.Content
		}
		return nil
	})
	if first == nil {
		return "", err
	}
	return *first, err
}

func (f *floor) complete(ctx context.Context) (string, error) {
	resp, err := f.chat(ctx, false)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	return decodeAnswer(resp.Body)
}

func (f *floor) completeCall(ctx context.Context) (string, error) {
	resp, err := f.chat(ctx, false)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		Choices []struct {
			Message struct {
				ToolCalls []struct {
					Function struct {
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return "", err
	}
	if len(out.Choices) == 0 || len(out.Choices[0].Message.ToolCalls) == 0 {
		return "", fmt.Errorf("no tool call")
	}
	return out.Choices[0].Message.ToolCalls[0].Function.Arguments, nil
}

// decodeAnswer returns the text of a non-streamed completion.
func decodeAnswer(body io.Reader) (string, error) {
	var out struct {
		Choices []struct {
			Message leanMessage `json:"message"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(body).Decode(&out); err != nil {
		return "", err
	}
	if len(out.Choices) == 0 {
		return "", fmt.Errorf("no choices")
	}
	return out.Choices[0].Message.Content, nil
}

// leanHistory is history in the floor's structs.
var leanHistory = func() leanHistoryRequest {
	req := leanHistoryRequest{Model: chatModel}
	for _, h := range history {
		m := leanHistoryMessage{Role: h.role, Content: h.content, ToolCallID: h.toolCallID}
		if h.callID != "" {
			call := leanToolCall{ID: h.callID, Type: "function"}
			call.Function.Name, call.Function.Arguments = h.callName, h.callArgs
			m.ToolCalls = []leanToolCall{call}
		}
		req.Messages = append(req.Messages, m)
	}
	return req
}()

func (f *floor) sendHistory(ctx context.Context) (string, error) {
	body, err := json.Marshal(leanHistory)
	if err != nil {
		return "", err
	}
	resp, err := f.do(ctx, http.MethodPost, "/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	return decodeAnswer(resp.Body)
}

func (f *floor) listModels(ctx context.Context) ([]string, error) {
	resp, err := f.do(ctx, http.MethodGet, "/models", "", nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, err
	}
	ids := make([]string, len(out.Data))
	for i, m := range out.Data {
		ids[i] = m.ID
	}
	return ids, nil
}

// transcribe streams the form through a pipe, so that the file is never held in memory.
func (f *floor) transcribe(ctx context.Context, audio io.Reader) (string, error) {
	pr, pw := io.Pipe()
	form := multipart.NewWriter(pw)
	go func() {
		part, err := form.CreateFormFile("file", audioName)
		if err == nil {
			_, err = io.Copy(part, audio)
		}
		if err == nil {
			err = form.WriteField("model", sttModel)
		}
		if err == nil {
			err = form.Close()
		}
		pw.CloseWithError(err)
	}()
	resp, err := f.do(ctx, http.MethodPost, "/audio/transcriptions", form.FormDataContentType(), pr)
	pr.Close()
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		Text string `json:"text"`
	}
	err = json.NewDecoder(resp.Body).Decode(&out)
	return out.Text, err
}
