package gatewaytest

import (
	"encoding/json"
	"slices"
)

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

// SampleFromSchema returns a value that a JSON Schema (decoded into map[string]any, as
// json.Unmarshal gives it) accepts, for the keywords schemas derived from Go types use: an object
// with every property, an array of one item (or of minItems), a string's first enum value or
// "example", the number nearest 0 within minimum and maximum, false, null. Anything else samples
// as null.
func SampleFromSchema(schema any) any {
	s, ok := schema.(map[string]any)
	if !ok {
		return nil
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	switch schemaType(s) {
	case "object":
		props, _ := s["properties"].(map[string]any)
		out := make(map[string]any, len(props))
		for name, p := range props {
			out[name] = SampleFromSchema(p)
		}
		return out
	case "array":
		n := 1
		if m, ok := s["minItems"].(float64); ok && m > 1 {
			n = int(min(m, 16))
		}
		out := make([]any, n)
		for i := range out {
			out[i] = SampleFromSchema(s["items"])
		}
		return out
	case "string":
		return "example"
	case "integer", "number":
		low, hasLow := s["minimum"].(float64)
		high, hasHigh := s["maximum"].(float64)
		switch {
		case hasLow && low > 0:
			return low
		case hasHigh && high < 0:
			return high
		}
		return 0
	case "boolean":
		return false
	}
	return nil
}

// schemaType is the schema's type, the first that is not null when it lists several.
func schemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		i := slices.IndexFunc(t, func(v any) bool { return v != "null" })
		if i >= 0 {
			name, _ := t[i].(string)
			return name
		}
	}
	return ""
}
