package schema

import (
	"encoding/json"
	"errors"

	"github.com/google/jsonschema-go/jsonschema"
)

// CheckJSON checks a schema given as JSON, as Check does. It returns nil when the validator cannot
// apply it (the caller then validates nothing), and an error for a schema no validation against
// could end.
func CheckJSON(raw []byte) (checked *Checked, err error) {
	defer func() {
		if recover() != nil {
			checked, err = nil, nil
		}
	}()
	if jsonDepth(raw) > maxSchemaNesting {
		return nil, nil
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil || !supportedDraft(schema.Schema) {
		return nil, nil
	}
	checked, err = Check(&schema)
	var cycle *CycleError
	if errors.As(err, &cycle) {
		return nil, err
	}
	return checked, nil
}

// supportedDraft reports whether the validator checks instances against a schema declaring this
// $schema; for any other it refuses every instance.
func supportedDraft(version string) bool {
	switch version {
	case "", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#",
		"https://json-schema.org/draft/2020-12/schema":
		return true
	}
	return false
}

// maxSchemaNesting bounds the nesting of a schema the validator reads: it takes ~35 ms at this
// depth, and a minute at 9,000.
const maxSchemaNesting = 256

// jsonDepth returns how deep the objects and arrays of a JSON text nest.
func jsonDepth(text []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}
