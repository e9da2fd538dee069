package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/infergate/infergate-go"
)

type weatherArgs struct {
	City  string     `json:"city" jsonschema:"the city, e.g. Paris"`
	Unit  string     `json:"unit,omitempty" enum:"celsius,fahrenheit"`
	At    *time.Time `json:"at"`
	Days  []int      `json:"days,omitempty"`
	Where struct {
		Lat float64  `json:"lat"`
		Lon *float64 `json:"lon"`
	} `json:"where"`
	Labels map[string]string `json:"labels,omitempty"`
	hidden int
	Skip   string `json:"-"`
}

func TestNewToolSchema(t *testing.T) {
	t.Parallel()
	tool, err := infergate.NewTool("weather", "Current weather", func(_ context.Context, in weatherArgs) (string, error) { return in.City, nil })
	if err != nil {
		t.Fatal(err)
	}
	def := tool.Definition()
	if def.Type != "function" || def.Function.Name != "weather" || tool.Name() != "weather" {
		t.Errorf("definition = %+v", def)
	}
	raw, _ := json.Marshal(def.Function.Parameters)
	var schema struct {
		Type       string   `json:"type"`
		Required   []string `json:"required"`
		Additional *bool    `json:"additionalProperties"`
		Properties map[string]struct {
			Type        any      `json:"type"`
			Description string   `json:"description"`
			Enum        []string `json:"enum"`
			Required    []string `json:"required"`
			Items       *struct {
				Type string `json:"type"`
			} `json:"items"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	p := schema.Properties
	switch {
	case schema.Type != "object" || schema.Additional == nil || *schema.Additional:
		t.Errorf("root %s", raw)
	case strings.Join(schema.Required, ",") != "city,where":
		t.Errorf("required = %v, want city and where (pointers and omitempty are optional)", schema.Required)
	case p["city"].Description != "the city, e.g. Paris" || p["city"].Type != "string":
		t.Errorf("city = %+v", p["city"])
	case strings.Join(p["unit"].Enum, ",") != "celsius,fahrenheit":
		t.Errorf("unit enum = %v", p["unit"].Enum)
	case p["days"].Items == nil || p["days"].Items.Type != "integer":
		t.Errorf("days = %+v", p["days"])
	case strings.Join(p["where"].Required, ",") != "lat":
		t.Errorf("nested required = %v", p["where"].Required)
	case len(p) != 6:
		t.Errorf("properties %v, want no hidden or skipped field", raw)
	}
	req := infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessage("hi")}, Tools: []infergate.Tool{def}}
	if err := req.Validate(); err != nil {
		t.Errorf("a typed tool's definition is not a valid request tool: %v", err)
	}
}

func TestNewToolRefusesBadInput(t *testing.T) {
	t.Parallel()
	noop := func(context.Context, struct{}) (string, error) { return "", nil }
	if _, err := infergate.NewTool("bad name!", "", noop); !isValidation(err) {
		t.Errorf("bad name: %v", err)
	}
	if _, err := infergate.NewTool[struct{}, string]("nil", "", nil); !isValidation(err) {
		t.Errorf("nil function: %v", err)
	}
	if _, err := infergate.NewTool("scalar", "", func(context.Context, string) (string, error) { return "", nil }); !isValidation(err) {
		t.Errorf("string input: %v", err)
	}
	if _, err := infergate.NewTool("chan", "", func(context.Context, struct{ C chan int }) (string, error) { return "", nil }); !isValidation(err) {
		t.Errorf("channel field: %v", err)
	}
}

func isValidation(err error) bool {
	var v *infergate.ValidationError
	return errors.As(err, &v)
}

func TestFuncToolCall(t *testing.T) {
	t.Parallel()
	tool, err := infergate.NewTool("weather", "", func(_ context.Context, in weatherArgs) (map[string]any, error) {
		switch in.City {
		case "Atlantis":
			return nil, errors.New("no such city")
		case "Boom":
			var m map[string]int
			m["x"] = 1 // a nil-map write: the tool's own bug
		}
		return map[string]any{"city": in.City, "temp": 21}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args, want string
		stage      infergate.ToolStage
	}{
		{`{"city":"Paris","where":{"lat":1}}`, `{"city":"Paris","temp":21}`, ""},
		{`{"city":"Paris","unit":"kelvin","where":{"lat":1}}`, "unit", infergate.ToolStageArguments},
		{`{"where":{"lat":1}}`, "city", infergate.ToolStageArguments},
		{`{"city":"Paris","where":{"lat":1},"extra":1}`, "extra", infergate.ToolStageArguments},
		{`{"city":5,"where":{"lat":1}}`, "city", infergate.ToolStageArguments},
		{`{"city":"Par`, "JSON", infergate.ToolStageArguments},
		{``, "city", infergate.ToolStageArguments},
		{`{"city":"Atlantis","where":{"lat":1}}`, "no such city", infergate.ToolStageRun},
		{`{"city":"Boom","where":{"lat":1}}`, "nil map", infergate.ToolStagePanic},
	} {
		got, err := tool.Call(context.Background(), tt.args)
		if tt.stage == "" {
			if err != nil || got != tt.want {
				t.Errorf("Call(%s) = %q, %v", tt.args, got, err)
			}
			continue
		}
		var te *infergate.ToolError
		if !errors.As(err, &te) || te.Stage != tt.stage || !strings.Contains(err.Error(), tt.want) || got != "" {
			t.Errorf("Call(%s) = %q, %v; want a %s error mentioning %q", tt.args, got, err, tt.stage, tt.want)
		}
	}
	text, err := infergate.NewTool("echo", "", func(_ context.Context, in struct {
		S string `json:"s"`
	}) (string, error) {
		return in.S, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := text.Call(context.Background(), `{"s":"plain \"text\""}`); err != nil || got != `plain "text"` {
		t.Errorf("a string result is sent as it is: %q, %v", got, err)
	}
}

// FuzzFuncToolCall throws arbitrary arguments at a typed tool: it never panics, and it either runs
// the function on arguments that match the schema or says why not.
func FuzzFuncToolCall(f *testing.F) {
	for _, s := range []string{`{"city":"Paris","where":{"lat":1}}`, `{"days":[1,2],"city":"x","where":{"lat":1,"lon":null}}`, `null`, `[]`, `{"city":null}`, `"x"`, `{"where":{"lat":"1"}}`} {
		f.Add(s)
	}
	tool, err := infergate.NewTool("weather", "", func(_ context.Context, in weatherArgs) (weatherArgs, error) { return in, nil })
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args string) {
		got, err := tool.Call(context.Background(), args)
		var te *infergate.ToolError
		if err != nil && (!errors.As(err, &te) || te.Stage != infergate.ToolStageArguments) {
			t.Fatalf("Call(%q): %v", args, err)
		}
		if err == nil && !json.Valid([]byte(got)) {
			t.Fatalf("Call(%q) = %q", args, got)
		}
	})
}

// TestNewToolEnums: an optional (pointer) enum field accepts null, which its schema's type allows
// and models send for "not given"; an enum tag on a field that is not a string is refused, since
// its string values could never match and the tool could never be called.
func TestNewToolEnums(t *testing.T) {
	t.Parallel()
	type args struct {
		Unit  *string  `json:"unit" enum:"celsius,fahrenheit"`
		Units []string `json:"units,omitempty" enum:"celsius,fahrenheit"`
	}
	tool, err := infergate.NewTool("enums", "", func(_ context.Context, in args) (string, error) {
		if in.Unit == nil {
			return "no unit", nil
		}
		return *in.Unit, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for args, want := range map[string]string{
		`{"unit":null}`:                          "no unit",
		`{}`:                                     "no unit",
		`{"unit":"celsius","units":["celsius"]}`: "celsius",
	} {
		if got, err := tool.Call(context.Background(), args); err != nil || got != want {
			t.Errorf("Call(%s) = %q, %v; want %q", args, got, err, want)
		}
	}
	for _, args := range []string{`{"unit":"kelvin"}`, `{"units":["kelvin"]}`, `{"units":[null]}`} {
		if _, err := tool.Call(context.Background(), args); err == nil {
			t.Errorf("Call(%s) ran on a value outside the enum", args)
		}
	}
	if _, err := infergate.NewTool("count", "", func(context.Context, struct {
		N int `json:"n" enum:"1,2"`
	}) (string, error) {
		return "", nil
	}); !isValidation(err) {
		t.Errorf("an enum on an int field: %v, want a ValidationError", err)
	}
}

// A typed tool's definition carries its schema as JSON, a copy: what a caller does to
// Definition() never reaches the schema the arguments are checked against.
func TestToolDefinitionIsACopy(t *testing.T) {
	t.Parallel()
	tool := weatherTool(t)
	params, ok := tool.Definition().Function.Parameters.(json.RawMessage)
	if !ok {
		t.Fatalf("Parameters is %T, want json.RawMessage", tool.Definition().Function.Parameters)
	}
	for i := range params {
		params[i] = ' '
	}
	if _, err := tool.Call(context.Background(), `{"city":42}`); err == nil {
		t.Error("a number was accepted as the city after the definition's bytes were changed")
	}
	if again := tool.Definition().Function.Parameters.(json.RawMessage); !json.Valid(again) {
		t.Errorf("the definition was changed through an earlier copy: %q", again)
	}
}
