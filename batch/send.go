package batch

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"time"

	infergate "github.com/infergate/infergate-go"
)

// answer is a request's result and what its answer reported for the run's sums.
type answer struct {
	result Result
	usage  *infergate.Usage
	cost   *infergate.Money
	// retryAfter is set on a 429: how long the server asked to wait (0 when it did not say).
	retryAfter time.Duration
	limited    bool
}

// send sends one request through the client, with its idempotency key, and makes its result.
func send(ctx context.Context, client *infergate.Client, c *call, opts []infergate.Option) answer {
	var info infergate.ResponseInfo
	opts = append(opts[:len(opts):len(opts)],
		infergate.WithHeader("Idempotency-Key", IdempotencyKey(c.customID, c.body)),
		infergate.WithResponseInfo(&info))
	a := answer{result: Result{ID: resultID(), CustomID: c.customID}}
	var (
		body []byte
		err  error
	)
	if c.chat != nil {
		var completion *infergate.ChatCompletion
		completion, err = client.Chat.Create(ctx, *c.chat, opts...)
		if err == nil {
			body, a.usage, a.cost = completion.RawJSON(), completion.Usage, info.Cost
		}
	} else {
		var vectors *infergate.EmbeddingResponse
		vectors, err = client.Embeddings.Create(ctx, *c.embed, opts...)
		if err == nil {
			a.usage = &vectors.Usage
			body, err = embeddingBody(vectors, c.base64)
		}
	}
	if err == nil && !json.Valid(body) {
		err = errors.New("batch: the answer's body is not JSON")
	}
	if err == nil {
		a.result.Response = &Response{StatusCode: info.StatusCode, RequestID: info.RequestID, Body: body}
		return a
	}
	var apiErr *infergate.APIError
	if errors.As(err, &apiErr) {
		a.result.Response = &Response{StatusCode: apiErr.StatusCode, RequestID: apiErr.RequestID, Body: errorBody(apiErr)}
		a.limited, a.retryAfter = apiErr.StatusCode == http.StatusTooManyRequests, apiErr.RetryAfter
		return a
	}
	a.result.Error = &ResultError{Code: errorCode(err), Message: err.Error()}
	return a
}

// errorBody is the body of an error answer, credentials redacted; when it is not JSON (a proxy's
// HTML page), an OpenAI error object with what the client read of it.
func errorBody(e *infergate.APIError) json.RawMessage {
	if len(e.Body) > 0 && json.Valid(e.Body) {
		return e.Body
	}
	type inner struct {
		Message string `json:"message"`
		Type    string `json:"type,omitempty"`
		Code    string `json:"code,omitempty"`
	}
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	b, _ := json.Marshal(struct {
		Error inner `json:"error"`
	}{inner{Message: msg, Type: e.Type, Code: e.Code}})
	return b
}

// errorCode names why a request got no answer, for ResultError.Code.
func errorCode(err error) string {
	var (
		transport  *infergate.TransportError
		validation *infergate.ValidationError
		decode     *infergate.DecodeError
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &transport):
		return "transport_error"
	case errors.As(err, &validation):
		return "invalid_request"
	case errors.As(err, &decode):
		return "invalid_response"
	}
	return "request_failed"
}

// embeddingBody writes the vectors as OpenAI's embeddings answer: each a list of numbers, or base64
// of its little-endian float32s when the line asked for base64.
func embeddingBody(r *infergate.EmbeddingResponse, asBase64 bool) ([]byte, error) {
	type vector struct {
		Object    string `json:"object"`
		Index     int    `json:"index"`
		Embedding any    `json:"embedding"`
	}
	data := make([]vector, len(r.Data))
	for i, e := range r.Data {
		data[i] = vector{Object: e.Object, Index: e.Index, Embedding: e.Embedding}
		if asBase64 {
			raw := make([]byte, 4*len(e.Embedding))
			for j, f := range e.Embedding {
				binary.LittleEndian.PutUint32(raw[4*j:], math.Float32bits(f))
			}
			data[i].Embedding = base64.StdEncoding.EncodeToString(raw)
		}
	}
	return json.Marshal(struct {
		Object string          `json:"object"`
		Data   []vector        `json:"data"`
		Model  string          `json:"model"`
		Usage  infergate.Usage `json:"usage"`
	}{r.Object, data, r.Model, r.Usage})
}

// resultID is a result's id: "batch_req_" and 26 random characters, as unique as OpenAI's.
func resultID() string { return "batch_req_" + rand.Text() }
