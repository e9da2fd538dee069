// Agent lets the model answer a question with two typed Go tools — the weather in a city and a
// temperature conversion — and prints every step of the tool loop as it happens: the streamed text,
// each call the model makes with its arguments, each result or error with its duration, and at the
// end the answer and the tokens all steps cost.
//
//	go run ./examples/agent
//
// It talks to the gateway at INFERGATE_BASE_URL (else the real one) when INFERGATE_API_KEY or
// INFERGATE_BASE_URL is set, and otherwise to an in-process fake whose model is scripted below.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"strings"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

const question = "What is the weather like in Lisbon? And my thermostat shows 68 °F: what is that in Celsius?"

func main() {
	client, stop, err := gatewaytest.Connect(os.Stdout, os.Getenv, gatewaytest.WithReplies(fakeModel...))
	if err != nil {
		log.Fatal(err)
	}
	err = run(context.Background(), os.Stdout, client)
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

// fakeModel is what the fake gateway answers in place of a model: first both tool calls at once,
// then an answer written from the tool results the loop sent back.
var fakeModel = []gatewaytest.Reply{
	{ToolCalls: []gatewaytest.ToolCall{
		{Name: "get_weather", Arguments: `{"city":"Lisbon"}`},
		{Name: "convert_temperature", Arguments: `{"value":68,"from":"fahrenheit","to":"celsius"}`},
	}},
	{Respond: answerFromResults},
}

// answerFromResults reads the tool results of the conversation, each under the name of the call
// it answers, and answers with them as a model would.
func answerFromResults(conversation []gatewaytest.Turn) gatewaytest.Reply {
	names := map[string]string{}
	results := map[string]string{}
	for _, turn := range conversation {
		for _, call := range turn.ToolCalls {
			names[call.ID] = call.Name
		}
		if turn.Role == "tool" {
			results[names[turn.ToolCallID]] = turn.Content
		}
	}
	var w weather
	var t temperature
	if json.Unmarshal([]byte(results["get_weather"]), &w) != nil || json.Unmarshal([]byte(results["convert_temperature"]), &t) != nil {
		return gatewaytest.Reply{Content: fmt.Sprintf("Sorry, a tool failed: %q, %q.",
			results["get_weather"], results["convert_temperature"])}
	}
	return gatewaytest.Reply{Content: fmt.Sprintf("In %s it is %s at %g °C, and your thermostat's reading is %g %s.",
		w.City, w.Sky, w.Celsius, t.Value, t.Unit)}
}

func run(ctx context.Context, out io.Writer, client *infergate.Client) error {
	tools, err := newTools()
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "question:", question)
	loop := client.Chat.RunTools(ctx, infergate.ChatRequest{
		Model:    "llama-3.3-70b",
		Messages: []infergate.Message{infergate.UserMessage(question)},
	}, infergate.ToolLoop{Tools: tools, MaxSteps: 6})
	streaming := false // whether a line of streamed text is open
	for event, err := range loop.Events() {
		if err != nil {
			return err
		}
		switch event.Kind {
		case infergate.ToolEventDelta:
			if text := event.Chunk.Text(); text != "" {
				if !streaming {
					fmt.Fprintf(out, "step %d, model: ", event.Step)
					streaming = true
				}
				fmt.Fprint(out, text)
			}
		case infergate.ToolEventTurn:
			if streaming {
				fmt.Fprintln(out)
				streaming = false
			}
			for _, call := range event.Message.ToolCalls {
				fmt.Fprintf(out, "step %d, call: %s %s\n", event.Step, call.Function.Name, call.Function.Arguments)
			}
		case infergate.ToolEventResult:
			// Calls of one step run concurrently, so their results arrive in the order they finish.
			r := event.Result
			took := r.Duration.Round(time.Microsecond)
			if r.Err != nil {
				// r.Err says it for the log; r.Output is what the model reads.
				fmt.Fprintf(out, "step %d, error: %v (%s)\n", event.Step, r.Err, took)
				continue
			}
			fmt.Fprintf(out, "step %d, result: %s = %s (%s)\n", event.Step, r.Call.Function.Name, r.Output, took)
		}
	}
	res, err := loop.Wait()
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "answer:", res.Answer.Text())
	fmt.Fprintf(out, "usage: %d steps, %d prompt + %d completion tokens\n", res.Steps, res.Usage.PromptTokens, res.Usage.CompletionTokens)
	return nil
}

type city struct {
	City string `json:"city" jsonschema:"the city's name, e.g. Lisbon"`
}

type weather struct {
	City    string  `json:"city"`
	Sky     string  `json:"sky"`
	Celsius float64 `json:"celsius"`
}

type conversion struct {
	Value float64 `json:"value" jsonschema:"the temperature to convert"`
	From  string  `json:"from" enum:"celsius,fahrenheit,kelvin"`
	To    string  `json:"to" enum:"celsius,fahrenheit,kelvin"`
}

type temperature struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

func newTools() ([]*infergate.FuncTool, error) {
	getWeather, err := infergate.NewTool("get_weather", "The current weather in a city.", currentWeather)
	if err != nil {
		return nil, err
	}
	convert, err := infergate.NewTool("convert_temperature", "Converts a temperature between units.", convertTemperature)
	if err != nil {
		return nil, err
	}
	return []*infergate.FuncTool{getWeather, convert}, nil
}

// stations stands in for a weather service.
var stations = map[string]weather{
	"lisbon": {City: "Lisbon", Sky: "sunny", Celsius: 21},
	"oslo":   {City: "Oslo", Sky: "snowing", Celsius: -4},
}

// currentWeather's error goes back to the model, which can then try another city or explain.
func currentWeather(ctx context.Context, in city) (weather, error) {
	w, ok := stations[strings.ToLower(strings.TrimSpace(in.City))]
	if !ok {
		return weather{}, fmt.Errorf("no weather station in %q; try Lisbon or Oslo", in.City)
	}
	return w, ctx.Err()
}

// convertTemperature converts through kelvin, rounding to a tenth of a degree. The schema has
// already limited From and To to the three units.
func convertTemperature(_ context.Context, in conversion) (temperature, error) {
	kelvin := in.Value
	switch in.From {
	case "celsius":
		kelvin += 273.15
	case "fahrenheit":
		kelvin = (kelvin-32)*5/9 + 273.15
	}
	if kelvin < 0 {
		return temperature{}, fmt.Errorf("%g %s is below absolute zero", in.Value, in.From)
	}
	v := kelvin
	switch in.To {
	case "celsius":
		v -= 273.15
	case "fahrenheit":
		v = (v-273.15)*9/5 + 32
	}
	return temperature{Value: math.Round(v*10) / 10, Unit: in.To}, nil
}
