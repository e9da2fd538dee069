package otelinfergate

import (
	"context"
	"errors"
	"strconv"

	infergate "github.com/infergate/infergate-go"
	"go.opentelemetry.io/otel/attribute"
)

// startAttributes are what is known before anything is sent: the operation and what it asks for.
func (o *operation) startAttributes() []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 16)
	if o.name != "" {
		attrs = append(attrs, keyOperationName.String(string(o.name)), keyProviderName.String(string(provider)))
	}
	if o.op.Model != "" {
		attrs = append(attrs, keyRequestModel.String(o.op.Model))
	}
	if o.op.ServerAddress != "" {
		attrs = append(attrs, keyServerAddress.String(o.op.ServerAddress))
	}
	if o.op.ServerPort > 0 {
		attrs = append(attrs, keyServerPort.Int(o.op.ServerPort))
	}
	if o.name == opChat {
		attrs = append(attrs, keyRequestStream.Bool(o.op.Stream))
	}
	switch r := o.op.Request.(type) {
	case *infergate.ChatRequest:
		attrs = appendChatRequest(attrs, r)
		if o.t.captureContent {
			attrs = append(attrs, keyInputMessages.String(inputMessages(r.Messages)))
		}
	case *infergate.EmbeddingRequest:
		if r.EncodingFormat != "" {
			attrs = append(attrs, keyEncodingFormats.StringSlice([]string{string(r.EncodingFormat)}))
		}
		if r.Dimensions != nil {
			attrs = append(attrs, keyDimensions.Int(*r.Dimensions))
		}
		if r.SessionID != "" {
			attrs = append(attrs, keyConversationID.String(r.SessionID))
		}
	case *infergate.TranscriptionRequest:
		attrs = append(attrs, outputText)
	case *infergate.SpeechRequest:
		attrs = append(attrs, outputSpeech)
		if r.SessionID != "" {
			attrs = append(attrs, keyConversationID.String(r.SessionID))
		}
	}
	if call := o.op.Tool; call != nil {
		attrs = append(attrs, keyToolName.String(call.Function.Name), keyToolCallID.String(call.ID), keyToolType.String("function"))
		if o.t.captureContent {
			attrs = append(attrs, keyToolArguments.String(call.Function.Arguments))
		}
	}
	return attrs
}

// appendChatRequest adds the sampling parameters the request sets.
func appendChatRequest(attrs []attribute.KeyValue, r *infergate.ChatRequest) []attribute.KeyValue {
	floats := []struct {
		key attribute.Key
		v   *float64
	}{{keyTemperature, r.Temperature}, {keyTopP, r.TopP}, {keyPresencePenalty, r.PresencePenalty}, {keyFrequencyPenalty, r.FrequencyPenalty}}
	for _, f := range floats {
		if f.v != nil {
			attrs = append(attrs, f.key.Float64(*f.v))
		}
	}
	if r.MaxTokens != nil {
		attrs = append(attrs, keyMaxTokens.Int(*r.MaxTokens))
	}
	if r.N != nil {
		attrs = append(attrs, keyChoiceCount.Int(*r.N))
	}
	if len(r.Stop) > 0 {
		attrs = append(attrs, keyStopSequences.StringSlice(r.Stop))
	}
	if r.SessionID != "" {
		attrs = append(attrs, keyConversationID.String(r.SessionID))
	}
	return attrs
}

// endAttributes are what the answer told: ids, model, finish reasons, usage, timing, content.
func (o *operation) endAttributes(e infergate.OperationEnd) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 12)
	if e.RequestID != "" {
		attrs = append(attrs, requestIDKey.String(e.RequestID))
	}
	if e.ResponseID != "" {
		attrs = append(attrs, keyResponseID.String(e.ResponseID))
	}
	if e.ResponseModel != "" {
		attrs = append(attrs, keyResponseModel.String(e.ResponseModel))
	}
	if len(e.FinishReasons) > 0 {
		reasons := make([]string, len(e.FinishReasons))
		for i, r := range e.FinishReasons {
			reasons[i] = string(r)
		}
		attrs = append(attrs, keyFinishReasons.StringSlice(reasons))
	}
	if u := e.Usage; u != nil {
		attrs = append(attrs, keyInputTokens.Int(u.PromptTokens))
		if o.name != opEmbeddings { // embeddings generate no tokens
			attrs = append(attrs, keyOutputTokens.Int(u.CompletionTokens))
		}
		if d := u.PromptTokensDetails; d != nil {
			attrs = append(attrs, keyCachedTokens.Int(d.CachedTokens))
		}
		if d := u.CompletionTokensDetails; d != nil {
			attrs = append(attrs, keyReasoningTokens.Int(d.ReasoningTokens))
		}
	}
	if !e.FirstChunk.IsZero() {
		attrs = append(attrs, keyTimeToFirstChunk.Float64(e.FirstChunk.Sub(o.start).Seconds()))
	}
	if o.t.captureContent {
		attrs = appendOutputContent(attrs, e)
	}
	return attrs
}

// appendOutputContent adds the answer, or a tool call's result.
func appendOutputContent(attrs []attribute.KeyValue, e infergate.OperationEnd) []attribute.KeyValue {
	switch r := e.Result.(type) {
	case *infergate.ChatCompletion:
		if r != nil {
			attrs = append(attrs, keyOutputMessages.String(outputMessages(r)))
		}
	case *infergate.ToolRunResult:
		if r != nil && r.Answer != nil {
			attrs = append(attrs, keyOutputMessages.String(outputMessages(r.Answer)))
		}
	case *infergate.ToolResult:
		if r != nil {
			attrs = append(attrs, keyToolResult.String(r.Output))
		}
	}
	return attrs
}

// errorType is error.type: a low-cardinality name for what went wrong, from the error's type, its
// HTTP status or the SDK's sentinel it matches; never the message, so never a credential.
func errorType(err error) string {
	var (
		toolErr   *infergate.ToolError
		apiErr    *infergate.APIError
		streamErr *infergate.StreamError
		loopErr   *infergate.ToolLimitError
		invalid   *infergate.ValidationError
	)
	switch {
	case errors.As(err, &toolErr):
		return "tool_" + string(toolErr.Stage)
	case errors.As(err, &apiErr):
		return strconv.Itoa(apiErr.StatusCode)
	case errors.As(err, &streamErr):
		if streamErr.Type != "" {
			return streamErr.Type
		}
		return "stream_error"
	case errors.As(err, &loopErr):
		switch loopErr.Limit {
		case infergate.ToolLimitCalls:
			return "tool_call_limit"
		case infergate.ToolLimitTokens:
			return "tool_token_limit"
		}
		return "tool_step_limit"
	case errors.As(err, &invalid):
		return "validation"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, infergate.ErrStreamTimeout):
		return "timeout"
	case errors.Is(err, infergate.ErrIncompleteStream):
		return "incomplete_stream"
	}
	return errorTypeOther
}

// errorDescription is the span status's description. The SDK's errors never hold credentials; a
// tool's error can quote its arguments, so without content capture it is named, not quoted.
func (o *operation) errorDescription(err error) string {
	var toolErr *infergate.ToolError
	if !o.t.captureContent && errors.As(err, &toolErr) {
		return "tool " + toolErr.Tool + " failed (" + string(toolErr.Stage) + ")"
	}
	return err.Error()
}
