package main

import (
	"context"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// duration is how run prints how long a call took, which varies from run to run.
var duration = regexp.MustCompile(`\(\d[0-9.µnms]*\)$`)

// normalize replaces durations with <d> and sorts the result lines of each step, since concurrent
// calls finish in any order.
func normalize(out string) []string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = duration.ReplaceAllString(l, "(<d>)")
	}
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && (strings.Contains(lines[j], ", result: ") || strings.Contains(lines[j], ", error: ")) {
			j++
		}
		slices.Sort(lines[i:j])
		i = j + 1
	}
	return lines
}

// TestOutput runs what main runs, against the fake gateway.
func TestOutput(t *testing.T) {
	t.Setenv("INFERGATE_API_KEY", "")
	t.Setenv("INFERGATE_BASE_URL", "")
	var out strings.Builder
	client, stop, err := gatewaytest.Connect(&out, os.Getenv, gatewaytest.WithReplies(fakeModel...))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := run(context.Background(), &out, client); err != nil {
		t.Fatal(err)
	}
	want := `using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)
question: What is the weather like in Lisbon? And my thermostat shows 68 °F: what is that in Celsius?
step 1, call: get_weather {"city":"Lisbon"}
step 1, call: convert_temperature {"value":68,"from":"fahrenheit","to":"celsius"}
step 1, result: convert_temperature = {"value":20,"unit":"celsius"} (<d>)
step 1, result: get_weather = {"city":"Lisbon","sky":"sunny","celsius":21} (<d>)
step 2, model: In Lisbon it is sunny at 21 °C, and your thermostat's reading is 20 celsius.
answer: In Lisbon it is sunny at 21 °C, and your thermostat's reading is 20 celsius.
usage: 2 steps, 38 prompt + 32 completion tokens
`
	if diff := cmp.Diff(normalize(want), normalize(out.String())); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if !duration.MatchString(strings.Split(out.String(), "\n")[4]) {
		t.Errorf("no duration on %q", strings.Split(out.String(), "\n")[4])
	}
}

// TestWhatTheModelSaw checks the second request: the question, the assistant's two calls, and a
// result answering each call by its id.
func TestWhatTheModelSaw(t *testing.T) {
	srv := gatewaytest.NewServer(gatewaytest.WithReplies(fakeModel...))
	defer srv.Close()
	if err := run(context.Background(), new(strings.Builder), srv.Client()); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("sent %d requests, want 2", len(reqs))
	}
	turns := reqs[1].Turns()
	if len(turns) != 4 || turns[0].Content != question || len(turns[1].ToolCalls) != 2 {
		t.Fatalf("second request: %+v", turns)
	}
	want := map[string]string{
		turns[1].ToolCalls[0].ID: `{"city":"Lisbon","sky":"sunny","celsius":21}`,
		turns[1].ToolCalls[1].ID: `{"value":20,"unit":"celsius"}`,
	}
	for _, turn := range turns[2:] {
		if turn.Role != "tool" || want[turn.ToolCallID] != turn.Content {
			t.Errorf("tool turn %+v, want one of %v", turn, want)
		}
	}
	if reqs[1].JSON["stream"] != true || len(reqs[1].JSON["tools"].([]any)) != 2 {
		t.Errorf("not a streamed request with both tools: %s", reqs[1].Body)
	}
}

// TestToolFailuresReachTheModel: an unknown city and a unit the schema does not allow come back to
// the model as errors, and run prints them.
func TestToolFailuresReachTheModel(t *testing.T) {
	srv := gatewaytest.NewServer(gatewaytest.WithReplies(
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{
			{Name: "get_weather", Arguments: `{"city":"Atlantis"}`},
			{Name: "convert_temperature", Arguments: `{"value":1,"from":"rankine","to":"celsius"}`},
		}},
		gatewaytest.Reply{Respond: answerFromResults},
	))
	defer srv.Close()
	var out strings.Builder
	if err := run(context.Background(), &out, srv.Client()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`step 1, error: infergate: tool get_weather failed: no weather station in "Atlantis"; try Lisbon or Oslo (`,
		"step 1, error: infergate: tool convert_temperature: invalid arguments: ",
		"answer: Sorry, a tool failed",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Count(line, "error:") > 1 || strings.Count(line, "get_weather") > 1 {
			t.Errorf("a failure is told twice in one line: %s", line)
		}
	}
}

func TestRunStopsAModelThatOnlyCallsTools(t *testing.T) {
	srv := gatewaytest.NewServer()
	defer srv.Close()
	for range 7 {
		srv.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "get_weather", Arguments: `{"city":"Oslo"}`}}})
	}
	err := run(context.Background(), new(strings.Builder), srv.Client())
	if !errors.Is(err, infergate.ErrToolStepLimit) || len(srv.Requests()) != 6 {
		t.Errorf("err = %v after %d requests, want the step limit after 6", err, len(srv.Requests()))
	}
}

func TestConvertTemperature(t *testing.T) {
	tests := []struct {
		in      conversion
		want    float64
		wantErr bool
	}{
		{conversion{68, "fahrenheit", "celsius"}, 20, false},
		{conversion{100, "celsius", "fahrenheit"}, 212, false},
		{conversion{0, "kelvin", "celsius"}, -273.2, false},
		{conversion{21.5, "celsius", "celsius"}, 21.5, false},
		{conversion{-500, "fahrenheit", "kelvin"}, 0, true},
	}
	for _, tt := range tests {
		got, err := convertTemperature(context.Background(), tt.in)
		if (err != nil) != tt.wantErr || (!tt.wantErr && (got.Value != tt.want || got.Unit != tt.in.To)) {
			t.Errorf("convert %+v = %+v, %v; want %g", tt.in, got, err, tt.want)
		}
	}
}
