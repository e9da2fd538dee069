package gatewaytest_test

import (
	"context"
	"encoding/json"
	"net/mail"
	"net/netip"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// schemaOf decodes a schema written as JSON, as the fake reads one from a request.
func schemaOf(t *testing.T, text string) any {
	t.Helper()
	var s any
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// accepted checks that the validator accepts a sample of the schema, and returns the sample.
func accepted(t *testing.T, text string) any {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		t.Fatal(err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	sample := gatewaytest.SampleFromSchema(schemaOf(t, text))
	if err := resolved.Validate(sample); err != nil {
		t.Fatalf("%s: sample %v refused: %v", text, sample, err)
	}
	return sample
}

func TestSampleFromSchemaFormats(t *testing.T) {
	t.Parallel()
	parses := map[string]func(string) error{
		"date-time": func(s string) error { _, err := time.Parse(time.RFC3339Nano, s); return err },
		"date":      func(s string) error { _, err := time.Parse(time.DateOnly, s); return err },
		"time":      func(s string) error { _, err := time.Parse("15:04:05Z07:00", s); return err },
		"email":     func(s string) error { _, err := mail.ParseAddress(s); return err },
		"uri": func(s string) error {
			u, err := url.Parse(s)
			if err == nil && (u.Scheme == "" || u.Host == "") {
				return &url.Error{Op: "parse", URL: s, Err: err}
			}
			return err
		},
		"ipv4": func(s string) error { _, err := netip.ParseAddr(s); return err },
		"ipv6": func(s string) error { _, err := netip.ParseAddr(s); return err },
		"uuid": func(s string) error {
			if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`).MatchString(s) {
				return &json.UnsupportedValueError{Str: s}
			}
			return nil
		},
	}
	for format, parse := range parses {
		sample, ok := gatewaytest.SampleFromSchema(map[string]any{"type": "string", "format": format}).(string)
		if !ok || parse(sample) != nil {
			t.Errorf("format %s: sample %q", format, sample)
		}
	}
	var when time.Time
	if err := json.Unmarshal([]byte(`"`+gatewaytest.SampleFromSchema(map[string]any{"type": "string", "format": "date-time"}).(string)+`"`), &when); err != nil || !when.Equal(gatewaytest.FixedTime()) {
		t.Errorf("date-time sample %v, %v: want FixedTime", when, err)
	}
}

func TestSampleFromSchemaPatterns(t *testing.T) {
	t.Parallel()
	for _, pattern := range []string{
		`^-?[0-9]+(\.[0-9]+)?$`, `^[0-9]+$`, `^".*"$`, `^[A-Z]{3}$`, `^(red|green)-[a-f0-9]{2,4}$`,
		`\d+ items?`, `^\w+@\w+\.com$`, `^(?:[01]\d|2[0-3]):[0-5]\d$`, `x*y+z?`, `^[^a-z]+$`,
	} {
		text := `{"type":"array","uniqueItems":true,"minItems":3,"items":{"type":"string","pattern":` + jsonString(pattern) + `}}`
		accepted(t, text)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestSampleFromSchemaKeywords(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ schema, want string }{
		{`{"type":"integer","minimum":3}`, `3`},
		{`{"type":"integer","exclusiveMinimum":3}`, `4`},
		{`{"type":"number","exclusiveMaximum":-1}`, `-1.5`},
		{`{"type":"integer","minimum":5,"multipleOf":4}`, `8`},
		{`{"type":"string","minLength":10}`, `"examplexxx"`},
		{`{"type":"string","maxLength":3}`, `"exa"`},
		{`{"const":"fixed"}`, `"fixed"`},
		{`{"type":["string","null"],"enum":["a","b",null]}`, `"a"`},
		{`{"type":"array","items":{"type":"integer"},"uniqueItems":true,"minItems":3}`, `[0,1,2]`},
		{`{"type":"array","items":{"type":"integer"},"maxItems":0}`, `[]`},
		{`{"anyOf":[{"type":"boolean"},{"type":"string"}]}`, `false`},
		{`{"allOf":[{"properties":{"a":{"type":"integer"}}},{"properties":{"b":{"type":"string","format":"date"}}}]}`, `{"a":0,"b":"2025-10-15"}`},
		{`{"$defs":{"n":{"type":"integer","minimum":1}},"type":"object","properties":{"n":{"$ref":"#/$defs/n"}}}`, `{"n":1}`},
		{`{"type":"string","contentEncoding":"base64"}`, `"ZXhhbXBsZQ=="`},
	} {
		got := accepted(t, tt.schema)
		if diff := cmp.Diff(schemaOf(t, tt.want), got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.schema, diff)
		}
	}
	// A $ref to itself ends.
	if got := gatewaytest.SampleFromSchema(map[string]any{"$ref": "#"}); got != nil {
		t.Errorf("a schema that is its own $ref: %v", got)
	}
}

// ledger holds the types whose JSON is not their Go structure: amounts, money, times.
type ledger struct {
	Posted  time.Time          `json:"posted"`
	Due     *time.Time         `json:"due,omitempty"`
	Total   infergate.Decimal  `json:"total"`
	Balance infergate.Money    `json:"balance"`
	Lines   []infergate.Money  `json:"lines"`
	Count   int                `json:"count,string"`
	Tags    map[string]float64 `json:"tags,omitempty"`
}

// With nothing queued, code that asks for a typed value runs offline: the fake's sample passes the
// schema and decodes, on the first attempt, also for times and amounts.
func TestTypedAnswersRunOfflineWithNothingQueued(t *testing.T) {
	t.Parallel()
	s := gatewaytest.New(t)
	obj, err := infergate.GenerateObject[ledger](context.Background(), s.Client().Chat, infergate.ChatRequest{
		Messages: []infergate.Message{infergate.UserMessage("the ledger")}}, infergate.ObjectSpec{})
	if err != nil || obj.Attempts != 1 {
		t.Fatalf("%+v, %v", obj, err)
	}
	if !obj.Value.Posted.Equal(gatewaytest.FixedTime()) || obj.Value.Due == nil || len(obj.Value.Lines) != 1 {
		t.Fatalf("value %+v", obj.Value)
	}
	st := infergate.StreamObject[[]ledger](context.Background(), s.Client().Chat, infergate.ChatRequest{
		Messages: []infergate.Message{infergate.UserMessage("the ledgers")}}, infergate.ObjectSpec{})
	list, err := st.Wait()
	if err != nil || len(list.Value) != 1 || list.Attempts != 1 {
		t.Fatalf("%+v, %v", list, err)
	}
}

// FuzzSampleFromSchema feeds the sampler any schema a request may hold: it never panics, ends, and
// gives a value JSON can write.
func FuzzSampleFromSchema(f *testing.F) {
	for _, seed := range []string{
		`{"type":"object","properties":{"a":{"type":"string","format":"date-time"},"b":{"type":"array","minItems":3,"uniqueItems":true,"items":{"type":"integer","multipleOf":3}}}}`,
		`{"type":"string","pattern":"^(a|b){3,5}[0-9]+$","minLength":2}`,
		`{"$defs":{"x":{"type":"array","minItems":16,"items":{"$ref":"#/$defs/x"}}},"$ref":"#/$defs/x"}`,
		`{"type":"number","minimum":1e308,"multipleOf":0.1}`,
		`{"allOf":[{"$ref":"#"}],"anyOf":[true,false]}`,
		`{"type":"string","pattern":"((a{0,2}){100}){100}"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var schema any
		if json.Unmarshal(data, &schema) != nil {
			return
		}
		sample := gatewaytest.SampleFromSchema(schema)
		if _, err := json.Marshal(sample); err != nil {
			t.Fatalf("%s: sample %v: %v", data, sample, err)
		}
	})
}
