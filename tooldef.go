package infergate

import (
	"encoding/json"
	"fmt"
)

// Tool is a function the model may call.
type Tool struct {
	Type     string             `json:"type"`     // "function"; empty is sent as "function"
	Function FunctionDefinition `json:"function"` // the function's name, description and parameters
}

type plainTool Tool

// MarshalJSON sends an empty Type as "function", the only type the API has.
func (t Tool) MarshalJSON() ([]byte, error) {
	if t.Type == "" {
		t.Type = "function"
	}
	return json.Marshal(plainTool(t))
}

// FunctionDefinition describes a callable function to the model.
type FunctionDefinition struct {
	Name        string `json:"name"`                  // letters, digits, '_' and '-', at most 64
	Description string `json:"description,omitempty"` // what the function does, for the model to decide when to call it
	// Parameters is the JSON Schema of the arguments: a map, a struct, or json.RawMessage. It must
	// encode to a JSON object.
	Parameters any   `json:"parameters,omitempty"`
	Strict     *bool `json:"strict,omitempty"` // ask for arguments that follow the schema exactly
}

// functionTool returns a function tool; parameters is its JSON Schema (nil for none).
func functionTool(name, description string, parameters any) Tool {
	return Tool{Type: "function", Function: FunctionDefinition{Name: name, Description: description, Parameters: parameters}}
}

// ToolChoice controls tool calling. The zero value leaves it to the model (the field is omitted); use
// ToolChoiceNone, ToolChoiceAuto, ToolChoiceRequired or ToolChoiceFunction.
type ToolChoice struct {
	mode     string
	function string
}

// The tool choice modes.
var (
	ToolChoiceNone     = ToolChoice{mode: "none"}     // never call a tool
	ToolChoiceAuto     = ToolChoice{mode: "auto"}     // the model decides
	ToolChoiceRequired = ToolChoice{mode: "required"} // call at least one tool
)

// ToolChoiceFunction forces a call of the named function.
func ToolChoiceFunction(name string) ToolChoice { return ToolChoice{function: name} }

// IsZero reports whether no choice was made, so that the field is omitted.
func (t ToolChoice) IsZero() bool { return t == ToolChoice{} }

// Equal reports whether t and u make the same choice. go-cmp uses it, so requests holding a
// ToolChoice compare with cmp.Diff without options.
func (t ToolChoice) Equal(u ToolChoice) bool { return t == u }

// MarshalJSON sends a mode as a string and a named function as {"type":"function",...}.
func (t ToolChoice) MarshalJSON() ([]byte, error) {
	if t.function != "" {
		return json.Marshal(namedToolChoice{Type: "function", Function: struct {
			Name string `json:"name"`
		}{t.function}})
	}
	return json.Marshal(t.mode)
}

// UnmarshalJSON reads either form.
func (t *ToolChoice) UnmarshalJSON(b []byte) error {
	var named namedToolChoice
	if err := json.Unmarshal(b, &named); err == nil {
		*t = ToolChoice{function: named.Function.Name}
		return nil
	}
	var mode string
	if err := json.Unmarshal(b, &mode); err != nil {
		return fmt.Errorf("infergate: tool_choice is neither a mode nor a function: %s", b)
	}
	*t = ToolChoice{mode: mode}
	return nil
}

// String shows the choice as it is sent.
func (t ToolChoice) String() string {
	if t.function != "" {
		return "function:" + t.function
	}
	return t.mode
}

type namedToolChoice struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}
