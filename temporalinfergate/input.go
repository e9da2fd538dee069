package temporalinfergate

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	infergate "github.com/infergate/infergate-go"
)

// ChatInput is the input of the chat activities: a ChatRequest with its Extra fields, which
// ChatRequest's own JSON leaves out, carried as JSON text so that they reach the worker as they
// were. Make one with NewChatInput. A ChatRequest given as a workflow's input loses its Extra
// fields in the same way: give the workflow a ChatInput instead.
type ChatInput struct {
	Request infergate.ChatRequest `json:"request"`         // the request; its Extra is in Extra
	Extra   infergate.RawFields   `json:"extra,omitempty"` // the request's Extra, each value as JSON
}

// NewChatInput returns req as an activity's input. An Extra value that cannot be encoded as JSON
// is a *infergate.ValidationError.
func NewChatInput(req infergate.ChatRequest) (ChatInput, error) {
	extra, err := encodeExtra("ChatRequest.Extra", req.Extra)
	req.Extra = nil
	return ChatInput{Request: req, Extra: extra}, err
}

// ChatRequest returns the request the input carries, its Extra fields included.
func (in ChatInput) ChatRequest() infergate.ChatRequest {
	req := in.Request
	req.Extra = decodeExtra(in.Extra, req.Extra)
	return req
}

// EmbeddingsInput is the input of the embeddings activity: an EmbeddingRequest with its Extra
// fields, as ChatInput carries a chat request's. Make one with NewEmbeddingsInput.
type EmbeddingsInput struct {
	Request infergate.EmbeddingRequest `json:"request"`         // the request; its Extra is in Extra
	Extra   infergate.RawFields        `json:"extra,omitempty"` // the request's Extra, each value as JSON
}

// NewEmbeddingsInput returns req as an activity's input. An Extra value that cannot be encoded as
// JSON is a *infergate.ValidationError.
func NewEmbeddingsInput(req infergate.EmbeddingRequest) (EmbeddingsInput, error) {
	extra, err := encodeExtra("EmbeddingRequest.Extra", req.Extra)
	req.Extra = nil
	return EmbeddingsInput{Request: req, Extra: extra}, err
}

// EmbeddingRequest returns the request the input carries, its Extra fields included.
func (in EmbeddingsInput) EmbeddingRequest() infergate.EmbeddingRequest {
	req := in.Request
	req.Extra = decodeExtra(in.Extra, req.Extra)
	return req
}

func encodeExtra(field string, extra map[string]any) (infergate.RawFields, error) {
	if len(extra) == 0 {
		return nil, nil
	}
	out := make(infergate.RawFields, len(extra))
	// In key order: the workflow calls this, and a replay must meet the same bad field first.
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		raw, err := json.Marshal(extra[k])
		if err != nil {
			return nil, &infergate.ValidationError{Field: field + "[" + k + "]", Reason: fmt.Sprintf("cannot be encoded as JSON: %v", err)}
		}
		out[k] = raw
	}
	return out, nil
}

// decodeExtra gives each raw field to the request as json.RawMessage, which the request sends as
// it is; fields already in extra (a caller building the input by hand) are kept.
func decodeExtra(raw infergate.RawFields, extra map[string]any) map[string]any {
	if len(raw) == 0 {
		return extra
	}
	out := maps.Clone(extra)
	if out == nil {
		out = make(map[string]any, len(raw))
	}
	for k, v := range raw {
		out[k] = v
	}
	return out
}
