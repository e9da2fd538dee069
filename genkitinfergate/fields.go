package genkitinfergate

import (
	"encoding/json"
	"maps"

	infergate "github.com/infergate/infergate-go"
)

// MetadataFields is the key of genkit's Metadata maps under which the fields of an answer that the
// SDK does not model (infergate.RawFields: Gemini's thought signatures, OpenRouter's reasoning
// details) travel, as the text of a JSON object, which genkit's copies of a message (it clones
// them through JSON) keep to the byte: a message's in ai.Message.Metadata, a tool call's in the
// Metadata of its tool request part. A model message sent back sends them as they came.
const MetadataFields = "infergate_fields"

// withFields puts fields under MetadataFields in metadata, making the map if need be.
func withFields(metadata map[string]any, f infergate.RawFields) map[string]any {
	if len(f) == 0 {
		return metadata
	}
	b, err := f.MarshalJSON()
	if err != nil {
		return metadata
	}
	if metadata == nil {
		metadata = map[string]any{}
	}
	metadata[MetadataFields] = string(b)
	return metadata
}

// readFields reads what a Metadata map holds under MetadataFields: the text this package puts
// there, or, from a caller, JSON bytes, RawFields, or a value that encodes to a JSON object.
func readFields(field string, metadata map[string]any) (infergate.RawFields, error) {
	var b []byte
	switch v := metadata[MetadataFields].(type) {
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
