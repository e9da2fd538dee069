package einoinfergate

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/cloudwego/eino/schema"

	infergate "github.com/infergate/infergate-go"
)

// The keys of eino's Extra maps under which the fields of an answer that the SDK does not model
// (infergate.RawFields: Gemini's thought signatures, OpenRouter's reasoning details) travel, each
// as the text of a JSON object, which every copy eino makes of a message (gob, JSON) keeps to the
// byte. ExtraFields holds a message's fields in schema.Message.Extra and a tool call's in
// schema.ToolCall.Extra. eino's ConcatMessages keeps a streamed tool call's Extra from its first
// fragment only, before the call's fields may have come, so Stream's last message carries the
// calls' fields in its Extra under ExtraToolCallFields instead, one object per call Index (a JSON
// object keyed by the Index's decimal text). A message sent back reads both.
const (
	ExtraFields         = "infergate_fields"
	ExtraToolCallFields = "infergate_tool_call_fields"
)

// fieldsText is fields as the text Extra keeps; false when there are none.
func fieldsText(f infergate.RawFields) (string, bool) {
	if len(f) == 0 {
		return "", false
	}
	b, err := f.MarshalJSON()
	return string(b), err == nil
}

// withFields puts fields under ExtraFields in extra, making the map if need be.
func withFields(extra map[string]any, f infergate.RawFields) map[string]any {
	text, ok := fieldsText(f)
	if !ok {
		return extra
	}
	if extra == nil {
		extra = map[string]any{}
	}
	extra[ExtraFields] = text
	return extra
}

// readFields reads what an Extra map holds under one of the keys: the text this package puts
// there, or, from a caller or a copy that decoded it, JSON bytes, RawFields, or a value that
// encodes to a JSON object.
func readFields(field string, v any) (infergate.RawFields, error) {
	var b []byte
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		b = []byte(v)
	case []byte:
		b = v
	case json.RawMessage:
		b = v
	case infergate.RawFields:
		return maps.Clone(v), nil
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			return nil, invalid(field, "cannot be encoded as JSON: %v", err)
		}
	}
	var f infergate.RawFields
	if err := f.UnmarshalJSON(b); err != nil {
		return nil, invalid(field, "is not the text of a JSON object: %v", err)
	}
	return f, nil
}

// callFields is what ExtraToolCallFields holds: each call's fields by its Index.
type callFields map[string]infergate.RawFields

// readCallFields reads ExtraToolCallFields from a message's Extra.
func readCallFields(field string, extra map[string]any) (callFields, error) {
	all, err := readFields(field, extra[ExtraToolCallFields])
	if len(all) == 0 || err != nil {
		return nil, err
	}
	out := make(callFields, len(all))
	for _, k := range slices.Sorted(maps.Keys(all)) {
		if out[k], err = readFields(fmt.Sprintf("%s[%q]", field, k), all[k]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// toolCallFields is the call's fields: its own Extra's, else those its message carries for its
// Index (or, without one, its place j).
func toolCallFields(field string, tc *schema.ToolCall, j int, byIndex callFields) (infergate.RawFields, error) {
	if v, ok := tc.Extra[ExtraFields]; ok {
		return readFields(field+".Extra["+strconv.Quote(ExtraFields)+"]", v)
	}
	index := j
	if tc.Index != nil {
		index = *tc.Index
	}
	return maps.Clone(byIndex[strconv.Itoa(index)]), nil
}

// streamFields is the Extra of a stream's last message: the message's fields, and its calls'
// by the Index each had in the stream (the calls are in the order of their indexes).
func streamFields(m infergate.Message, indexes []int) map[string]any {
	extra := withFields(nil, m.Extra)
	calls := infergate.RawFields{}
	for j, tc := range m.ToolCalls {
		if text, ok := fieldsText(tc.Extra); ok && j < len(indexes) {
			calls[strconv.Itoa(indexes[j])] = json.RawMessage(text)
		}
	}
	if text, ok := fieldsText(calls); ok {
		if extra == nil {
			extra = map[string]any{}
		}
		extra[ExtraToolCallFields] = text
	}
	return extra
}
