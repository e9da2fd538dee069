package gatewaytest

import "encoding/json"

type requestTool struct {
	Function struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// forcedFunction returns the function the request's tool_choice forces, with its parameters
// schema; ok is false when it forces none of its tools.
func forcedFunction(req chatRequest) (name string, parameters json.RawMessage, ok bool) {
	var choice namedChoice
	if json.Unmarshal(req.ToolChoice, &choice) != nil || choice.Function.Name == "" {
		return "", nil, false
	}
	for _, t := range req.Tools {
		if t.Function.Name == choice.Function.Name {
			return t.Function.Name, t.Function.Parameters, true
		}
	}
	return "", nil, false
}

type namedChoice struct {
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

// answerObject renders a reply's Object, or answers a request that forces a function and found
// no scripted reply with a sample of its parameters.
func answerObject(r Reply, scripted bool, req chatRequest) Reply {
	name, params, forced := forcedFunction(req)
	if r.Object == nil && (scripted || !forced) {
		return r
	}
	var text []byte
	if r.Object != nil {
		text = []byte(mustJSON(r.Object))
		if forced && isEnvelopeSchema(params) && !isEnvelope(text) {
			text = []byte(mustJSON(map[string]json.RawMessage{"value": text}))
		}
	} else {
		var schema any
		_ = json.Unmarshal(params, &schema) // no schema samples as null
		text = []byte(mustJSON(SampleFromSchema(schema)))
	}
	r.Content, r.Chunks, r.ToolCalls = "", nil, nil
	if forced {
		r.ToolCalls = []ToolCall{{Name: name, Arguments: string(text)}}
		r.FinishReason = ""
		return r
	}
	r.Content = string(text)
	return r
}

// isEnvelopeSchema reports whether a function's parameters are the SDK's envelope for a value a
// call's arguments, an object, cannot be: an object of the one property "value".
func isEnvelopeSchema(params []byte) bool {
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(params, &schema) != nil || schema.Type != "object" || len(schema.Properties) != 1 {
		return false
	}
	return schema.Properties["value"] != nil
}

// isEnvelope reports whether JSON text is an object of the one property "value".
func isEnvelope(text []byte) bool {
	var object map[string]json.RawMessage
	return json.Unmarshal(text, &object) == nil && len(object) == 1 && object["value"] != nil
}
