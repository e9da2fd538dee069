package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// convertArguments are what the model must send to call "convert". The schema comes from the
// struct: json tags name the properties, jsonschema tags describe them, enum lists allowed values,
// and a field with omitempty (or a pointer) is optional.
type convertArguments struct {
	Value float64 `json:"value" jsonschema:"the temperature to convert"`
	From  string  `json:"from" enum:"celsius,fahrenheit"`
	To    string  `json:"to,omitempty" enum:"celsius,fahrenheit" jsonschema:"default: the other unit"`
}

func convertTemperature(_ context.Context, in convertArguments) (float64, error) {
	if in.From == in.To {
		return in.Value, nil
	}
	if in.From == "celsius" {
		return in.Value*9/5 + 32, nil
	}
	return (in.Value - 32) * 5 / 9, nil
}

func ExampleNewTool() {
	convert, err := infergate.NewTool("convert", "Converts a temperature.", convertTemperature)
	if err != nil {
		log.Fatal(err)
	}
	schema, _ := json.MarshalIndent(convert.Definition().Function.Parameters, "", "  ")
	fmt.Println(string(schema))

	// Call is what a tool loop does with the arguments a model sends.
	ctx := context.Background()
	fmt.Println(convert.Call(ctx, `{"value": 100, "from": "celsius"}`))
	// Arguments the schema refuses never reach the function; the error's Feedback is what the
	// model reads, and its Error text the detail for logs.
	_, err = convert.Call(ctx, `{"value": 100, "from": "kelvin"}`)
	var toolErr *infergate.ToolError
	if errors.As(err, &toolErr) {
		fmt.Println(toolErr.Feedback())
	}
	// Output:
	// {
	//   "type": "object",
	//   "properties": {
	//     "value": {
	//       "type": "number",
	//       "description": "the temperature to convert"
	//     },
	//     "from": {
	//       "type": "string",
	//       "enum": [
	//         "celsius",
	//         "fahrenheit"
	//       ]
	//     },
	//     "to": {
	//       "type": "string",
	//       "description": "default: the other unit",
	//       "enum": [
	//         "celsius",
	//         "fahrenheit"
	//       ]
	//     }
	//   },
	//   "required": [
	//     "value",
	//     "from"
	//   ],
	//   "additionalProperties": false
	// }
	// 212 <nil>
	// Invalid arguments for convert: "from" must be one of "celsius", "fahrenheit".
}

// weatherReport is what the "weather" tool returns; the model reads it as JSON.
type weatherReport struct {
	City    string `json:"city"`
	Celsius int    `json:"celsius"`
	Sky     string `json:"sky"`
}

func ExampleChatService_RunTools() {
	gw := gatewaytest.NewServer() // stands in for the real gateway and its model
	defer gw.Close()
	gw.Enqueue(
		// Step 1: the model asks for two tools at once.
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
			{Name: "weather", Arguments: `{"city":"Lisbon"}`},
			{Name: "convert", Arguments: `{"value":21,"from":"celsius","to":"fahrenheit"}`},
		}, Usage: &gatewaytest.Usage{PromptTokens: 30, CompletionTokens: 10, TotalTokens: 40}},
		// Step 2: it answers from the tool results it was sent.
		gatewaytest.Reply{Respond: func(conversation []gatewaytest.Turn) gatewaytest.Reply {
			var results []string
			for _, turn := range conversation {
				if turn.Role == "tool" {
					results = append(results, turn.Content)
				}
			}
			return gatewaytest.Reply{Content: "From the tools: " + strings.Join(results, " and "),
				Usage: &gatewaytest.Usage{PromptTokens: 60, CompletionTokens: 12, TotalTokens: 72}}
		}},
	)

	weather, err := infergate.NewTool("weather", "Current weather in a city.",
		func(_ context.Context, in struct {
			City string `json:"city"`
		}) (weatherReport, error) {
			return weatherReport{City: in.City, Celsius: 21, Sky: "sunny"}, nil
		})
	if err != nil {
		log.Fatal(err)
	}
	convert, err := infergate.NewTool("convert", "Converts a temperature.", convertTemperature)
	if err != nil {
		log.Fatal(err)
	}

	run := gw.Client().Chat.RunTools(context.Background(), infergate.ChatRequest{
		Model:    "llama-3.3-70b",
		Messages: []infergate.Message{infergate.UserMessage("How warm is Lisbon, in Fahrenheit?")},
	}, infergate.ToolLoop{Tools: []*infergate.FuncTool{weather, convert}, MaxSteps: 5})
	for event, err := range run.Events() {
		if err != nil {
			log.Fatal(err)
		}
		switch event.Kind {
		case infergate.ToolEventDelta:
			// event.Chunk.Text() is the answer as it streams in.
		case infergate.ToolEventTurn:
			for _, call := range event.Message.ToolCalls {
				fmt.Printf("step %d: %s %s\n", event.Step, call.Function.Name, call.Function.Arguments)
			}
		case infergate.ToolEventResult:
			// Results arrive as calls finish, in any order; event.Result.Duration is how long each took.
			if event.Result.Err != nil {
				fmt.Println("failed:", event.Result.Err)
			}
		}
	}
	res, err := run.Wait() // the loop has already ended: Wait returns how
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Answer.Text())
	// Usage is summed over the steps; Messages is the whole conversation, to store or continue.
	fmt.Printf("%d steps, %d tokens, transcript:", res.Steps, res.Usage.TotalTokens)
	for _, m := range res.Messages {
		fmt.Print(" ", m.Role)
	}
	fmt.Println()
	// Output:
	// step 1: weather {"city":"Lisbon"}
	// step 1: convert {"value":21,"from":"celsius","to":"fahrenheit"}
	// From the tools: {"city":"Lisbon","celsius":21,"sky":"sunny"} and 69.8
	// 2 steps, 112 tokens, transcript: user assistant tool tool assistant
}

func ExampleNewToolFromSchema() {
	search, err := infergate.NewToolFromSchema("search", "Searches the wiki.", json.RawMessage(`{
		"type": "object",
		"properties": {"query": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
		"required": ["query"],
		"additionalProperties": false
	}`), func(_ context.Context, arguments json.RawMessage) (string, error) {
		var in struct{ Query string }
		if err := json.Unmarshal(arguments, &in); err != nil {
			return "", err
		}
		return "3 pages about " + in.Query, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	fmt.Println(search.Call(ctx, `{"query": "retries"}`))
	var toolErr *infergate.ToolError
	for _, arguments := range []string{`{"limit": 5}`, `{"query": "retries", "limit": 0}`} {
		if _, err := search.Call(ctx, arguments); errors.As(err, &toolErr) {
			fmt.Println(toolErr.Feedback())
		}
	}
	// Output:
	// 3 pages about retries <nil>
	// Invalid arguments for search: "query" is required.
	// Invalid arguments for search: "limit" must be at least 1.
}

// A loop that asks before a tool deletes anything, and gives each call 10 seconds.
func ExampleToolLoop_approve() {
	gw := gatewaytest.NewServer()
	defer gw.Close()
	gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "delete_file", Arguments: `{"path":"/etc/hosts"}`}}},
		gatewaytest.Reply{Content: "I was not allowed to delete it."})
	deleteFile, err := infergate.NewTool("delete_file", "Deletes a file.", func(context.Context, struct {
		Path string `json:"path"`
	}) (string, error) {
		return "deleted", nil
	})
	if err != nil {
		log.Fatal(err)
	}
	loop := infergate.ToolLoop{
		Tools:       []*infergate.FuncTool{deleteFile},
		ToolTimeout: 10 * time.Second,
		Approve: func(_ context.Context, call infergate.ToolCall) error {
			if strings.Contains(call.Function.Arguments, "/etc/") {
				return errors.New("The user did not allow deleting files under /etc.")
			}
			return nil
		},
	}
	run := gw.Client().Chat.RunTools(context.Background(), infergate.ChatRequest{
		Model:    "llama-3.3-70b",
		Messages: []infergate.Message{infergate.UserMessage("Delete /etc/hosts.")},
	}, loop)
	for event, err := range run.Events() {
		if err != nil {
			log.Fatal(err)
		}
		if event.Kind == infergate.ToolEventResult {
			var toolErr *infergate.ToolError
			if errors.As(event.Result.Err, &toolErr) && toolErr.Stage == infergate.ToolStageRefused {
				fmt.Println("refused; the model reads:", event.Result.Output)
			}
		}
	}
	res, _ := run.Wait()
	fmt.Println(res.Answer.Text())
	// Output:
	// refused; the model reads: The user did not allow deleting files under /etc.
	// I was not allowed to delete it.
}
