package infergate_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/infergate/infergate-go"
)

func TestExtraFieldsAreMerged(t *testing.T) {
	t.Parallel()
	client, mock := mockClient(t)
	seen := captureCalls(mock, http.MethodPost, chatURL, 200, okCompletion, nil)
	req := hello()
	req.Extra = map[string]any{"seed": 7, "response_format": map[string]any{"type": "json_object"}, "top_k": 40}
	req.Messages = append(req.Messages, infergate.Message{Role: "developer", Content: "be terse"},
		infergate.UserMessageParts(infergate.ImageURLPart("http://example.com/cat.png")))
	req.Tools = []infergate.Tool{{Function: infergate.FunctionDefinition{Name: "f"}}}
	if _, err := client.Chat.Create(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body := (*seen)[0].body
	if body["seed"] != 7.0 || body["top_k"] != 40.0 || body["response_format"].(map[string]any)["type"] != "json_object" || body["model"] != "llama-3.3-70b" {
		t.Errorf("body = %v", body)
	}
	msgs := body["messages"].([]any)
	if msgs[1].(map[string]any)["role"] != "developer" {
		t.Errorf("the developer role was not sent: %v", msgs[1])
	}
	if tool := body["tools"].([]any)[0].(map[string]any); tool["type"] != "function" {
		t.Errorf("a tool without Type was sent as %v", tool)
	}
	for _, key := range []string{"temperature", "messages", "stream"} {
		req.Extra = map[string]any{key: 1}
		_, err := client.Chat.Create(context.Background(), req)
		var ve *infergate.ValidationError
		if !errors.As(err, &ve) || ve.Field != "Extra" {
			t.Errorf("Extra[%q]: %v, want a ValidationError", key, err)
		}
	}
	req.Extra = map[string]any{"bad": func() {}}
	if _, err := client.Chat.Create(context.Background(), req); err == nil || len(*seen) != 1 {
		t.Errorf("an unencodable extra value: %v", err)
	}
}

func TestExtraOnEmbeddingsAndSpeech(t *testing.T) {
	t.Parallel()
	client, mock := mockClient(t)
	emb := captureCalls(mock, http.MethodPost, "https://gw.test/api/v1/embeddings", 200,
		`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,2]}],"usage":{"prompt_tokens":1,"total_tokens":1}}`, nil)
	if _, err := client.Embeddings.Create(context.Background(), infergate.EmbeddingRequest{Input: []string{"a"}, Extra: map[string]any{"truncate": "END"}}); err != nil {
		t.Fatal(err)
	}
	if (*emb)[0].body["truncate"] != "END" || (*emb)[0].body["encoding_format"] != "base64" {
		t.Errorf("embeddings body = %v", (*emb)[0].body)
	}
	_, err := client.Embeddings.Create(context.Background(), infergate.EmbeddingRequest{Input: []string{"a"}, Extra: map[string]any{"input": "b"}})
	var ve *infergate.ValidationError
	if !errors.As(err, &ve) {
		t.Errorf("a modelled key in embeddings Extra: %v", err)
	}
	_, err = client.Audio.Speak(context.Background(), infergate.SpeechRequest{Input: "hi", Extra: map[string]any{"voice": "x"}})
	if !errors.As(err, &ve) {
		t.Errorf("a modelled key in speech Extra: %v", err)
	}
}
