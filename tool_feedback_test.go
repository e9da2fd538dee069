package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/infergate/infergate-go"
)

// What a model reads when its arguments break a hand-written schema: plain words for every keyword
// the validator checks, and for the few the explainer leaves to it, the validator's words without
// its location prefixes.
func TestFeedbackCoversTheValidatorsKeywords(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ schema, args, want string }{
		{`{"type":"object","properties":{"n":{"type":"number","multipleOf":0.5}}}`, `{"n":0.7}`,
			`"n" must be a multiple of 0.5.`},
		{`{"type":"object","properties":{"tags":{"type":"array","uniqueItems":true}}}`, `{"tags":["a","b","a"]}`,
			`"tags" must not repeat an item: items 0 and 2 are the same.`},
		{`{"type":"object","minProperties":2}`, `{"a":1}`,
			`the arguments must have at least 2 properties, not 1.`},
		{`{"type":"object","dependentRequired":{"card":["expiry"]}}`, `{"card":"4111"}`,
			`"expiry" is required when "card" is given.`},
		{`{"type":"object","propertyNames":{"pattern":"^[a-z]+$"}}`, `{"Bad":1}`,
			`The property name "Bad" is not allowed: it must match the pattern ^[a-z]+$.`},
		{`{"type":"object","properties":{"at":{"type":"array","prefixItems":[{"type":"number"},{"type":"string"}]}}}`, `{"at":[1,2]}`,
			`"at[1]" must be a string, not a number.`},
		{`{"type":"object","properties":{"id":{"anyOf":[{"type":"string","minLength":3},{"type":"integer"}]}}}`, `{"id":"ab"}`,
			`"id" must be at least 3 characters long, not 2.`},
		{`{"type":"object","properties":{"id":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`, `{"id":true}`,
			`"id" must be a string or an integer, not a boolean.`},
		{`{"type":"object","properties":{"n":{"oneOf":[{"type":"integer"},{"minimum":0}]}}}`, `{"n":3}`,
			`"n" matches 2 of the forms allowed for it, and must match exactly one.`},
		{`{"type":"object","properties":{"mode":{"not":{"const":"off"}}}}`, `{"mode":"off"}`,
			`"mode" must not be a string like this one.`},
		{`{"type":"object","properties":{"n":{"if":{"minimum":10},"then":{"multipleOf":10}}}}`, `{"n":15}`,
			`"n" does not match the schema: multipleOf: 15 is not a multiple of 10.`},
	} {
		tool, err := infergate.NewToolFromSchema("t", "", json.RawMessage(tt.schema), func(context.Context, json.RawMessage) (string, error) {
			return "ran", nil
		})
		if err != nil {
			t.Fatal(err)
		}
		_, err = tool.Call(context.Background(), tt.args)
		var te *infergate.ToolError
		if !errors.As(err, &te) {
			t.Fatalf("%s with %s: %v", tt.schema, tt.args, err)
		}
		if got := strings.TrimPrefix(te.Feedback(), "Invalid arguments for t: "); got != tt.want {
			t.Errorf("%s with %s: the model read\n\t%s\nwant\n\t%s", tt.schema, tt.args, got, tt.want)
		}
	}
}
