package genkitinfergate_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/google/go-cmp/cmp"

	"github.com/infergate/infergate-go/gatewaytest"
)

type cityInput struct {
	City string `json:"city"`
}

// genkit runs the tool loop: two steps of tool calls (the first with two parallel calls), then
// the answer. Each step's reasoning goes back with the model's message, and each tool response
// answers its call by id.
func TestGenerateToolLoop(t *testing.T) {
	t.Parallel()
	g, srv := newGenkit(t)
	var mu sync.Mutex // genkit runs parallel calls at once
	var ran []string
	weather := genkit.DefineTool(g, "weather", "The weather in a city.",
		func(_ *ai.ToolContext, in cityInput) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			ran = append(ran, in.City)
			return "sunny in " + in.City, nil
		})
	srv.Enqueue(
		gatewaytest.Reply{Reasoning: "Two cities.", ToolCalls: []gatewaytest.ToolCall{
			{ID: "call_a", Name: "weather", Arguments: `{"city":"Rome"}`},
			{ID: "call_b", Name: "weather", Arguments: `{"city":"Bern"}`}}},
		gatewaytest.Reply{Reasoning: "One more.", ToolCalls: []gatewaytest.ToolCall{
			{ID: "call_c", Name: "weather", Arguments: `{"city":"Oslo"}`}}},
		gatewaytest.Reply{Respond: func(turns []gatewaytest.Turn) gatewaytest.Reply {
			return gatewaytest.Reply{Content: "Last: " + turns[len(turns)-1].Content}
		}},
	)
	resp, err := generate(g, ai.WithSystem("Be brief."), ai.WithPrompt("Weather?"), ai.WithTools(weather))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "Last: sunny in Oslo" {
		t.Fatalf("answer %q", resp.Text())
	}
	slices.Sort(ran[:2])
	if d := cmp.Diff([]string{"Bern", "Rome", "Oslo"}, ran); d != "" {
		t.Fatalf("tool runs (-want +got):\n%s", d)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	want := []gatewaytest.Turn{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "Weather?"},
		{Role: "assistant", Reasoning: "Two cities.", ToolCalls: []gatewaytest.ToolCall{
			{ID: "call_a", Name: "weather", Arguments: `{"city":"Rome"}`},
			{ID: "call_b", Name: "weather", Arguments: `{"city":"Bern"}`}}},
		{Role: "tool", ToolCallID: "call_a", Content: "sunny in Rome"},
		{Role: "tool", ToolCallID: "call_b", Content: "sunny in Bern"},
		{Role: "assistant", Reasoning: "One more.", ToolCalls: []gatewaytest.ToolCall{
			{ID: "call_c", Name: "weather", Arguments: `{"city":"Oslo"}`}}},
		{Role: "tool", ToolCallID: "call_c", Content: "sunny in Oslo"},
	}
	got := reqs[2].Turns()
	if len(got) == len(want) {
		// genkit answers parallel calls in the order they finish.
		slices.SortFunc(got[3:5], func(a, b gatewaytest.Turn) int { return strings.Compare(a.ToolCallID, b.ToolCallID) })
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("last request's conversation (-want +got):\n%s", d)
	}
	tools, _ := json.Marshal(reqs[0].JSON["tools"])
	var sent []struct {
		Type     string
		Function struct {
			Name       string
			Parameters map[string]any
		}
	}
	if err := json.Unmarshal(tools, &sent); err != nil || len(sent) != 1 || sent[0].Type != "function" ||
		sent[0].Function.Name != "weather" || sent[0].Function.Parameters["type"] != "object" {
		t.Fatalf("tools sent: %s (%v)", tools, err)
	}
}

// The answer's parts, finish reason and usage, cached and reasoning tokens included.
func TestGenerateAnswer(t *testing.T) {
	t.Parallel()
	g, srv := newGenkit(t)
	srv.FailNext(1, rawToolAnswer)
	resp, err := generate(g, ai.WithPrompt("q"), ai.WithReturnToolRequests(true))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(wantToolAnswer, resp.Message.Content); d != "" {
		t.Fatalf("answer (-want +got):\n%s", d)
	}
	if resp.FinishReason != ai.FinishReasonStop {
		t.Fatalf("finish reason %q", resp.FinishReason)
	}
	u := resp.Usage
	if u == nil || u.InputTokens != 100 || u.OutputTokens != 40 || u.TotalTokens != 140 || u.CachedContentTokens != 64 || u.ThoughtsTokens != 30 {
		t.Fatalf("usage %+v", u)
	}
}

func TestFinishReasons(t *testing.T) {
	t.Parallel()
	g, srv := newGenkit(t)
	for sent, want := range map[string]ai.FinishReason{
		"stop": ai.FinishReasonStop, "length": ai.FinishReasonLength, "content_filter": ai.FinishReasonBlocked,
		"tool_calls": ai.FinishReasonStop, "something_new": ai.FinishReasonOther,
	} {
		srv.Enqueue(gatewaytest.Reply{Content: "a", FinishReason: sent})
		resp, err := generate(g, ai.WithPrompt("q"))
		if err != nil || resp.FinishReason != want {
			t.Fatalf("finish_reason %q: %v, %v; want %q", sent, resp.FinishReason, err, want)
		}
	}
	srv.FailNext(1, rawJSON(`{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,
		"message":{"role":"assistant","content":null,"refusal":"I cannot."},"finish_reason":"content_filter"}]}`))
	resp, err := generate(g, ai.WithPrompt("q"))
	if err != nil || resp.FinishReason != ai.FinishReasonBlocked || resp.FinishMessage != "I cannot." {
		t.Fatalf("refusal: %+v, %v", resp, err)
	}
}

// Arguments that are not JSON reach the tool as a string, which its input check refuses, and go
// back to the model as they came.
func TestToolArgumentsNotJSON(t *testing.T) {
	t.Parallel()
	g, srv := newGenkit(t)
	srv.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{ID: "c1", Name: "weather", Arguments: `{"city":`}}})
	resp, err := generate(g, ai.WithPrompt("q"), ai.WithReturnToolRequests(true))
	if err != nil {
		t.Fatal(err)
	}
	reqs := resp.ToolRequests()
	if len(reqs) != 1 || reqs[0].Input != `{"city":` {
		t.Fatalf("tool requests %+v", reqs)
	}
	srv.Enqueue(gatewaytest.Reply{Content: "ok"})
	if _, err := generate(g, ai.WithMessages(resp.History()...)); err != nil {
		t.Fatal(err)
	}
	last, _ := srv.LastRequest()
	turns := last.Turns()
	if got := turns[len(turns)-1].ToolCalls; len(got) != 1 || got[0].Arguments != `{"city":` {
		t.Fatalf("sent back %+v", got)
	}
}

// Typed output works without constrained decoding: genkit asks for the JSON in the prompt and reads
// it out of the answer.
func TestGenerateData(t *testing.T) {
	t.Parallel()
	g, srv := newGenkit(t)
	srv.Enqueue(gatewaytest.Reply{Content: "```json\n{\"city\":\"Rome\"}\n```"})
	out, _, err := genkit.GenerateData[cityInput](context.Background(), g, ai.WithModelName(model), ai.WithPrompt("A city?"))
	if err != nil || out == nil || out.City != "Rome" {
		t.Fatalf("GenerateData: %+v, %v", out, err)
	}
	last, _ := srv.LastRequest()
	if turns := last.Turns(); !strings.Contains(turns[len(turns)-1].Content, `"city"`) {
		t.Fatalf("the prompt does not ask for the schema: %+v", turns)
	}
}
