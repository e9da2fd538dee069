package otelinfergate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/otelinfergate"
)

var contentKeys = []string{"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"}

func TestContentCaptureOffByDefault(t *testing.T) {
	t.Parallel()
	tel := newTelemetry()
	toolLoop(t, tel)
	for _, s := range tel.spans.Ended() {
		noAttrs(t, s, contentKeys...)
	}
	// Nothing said in the conversation is anywhere: not in attributes, statuses or metrics.
	all := tel.everyString(t)
	for _, said := range []string{"Lisbon", "Porto", "Sunny"} {
		if s := containsAny(all, said); s != "" {
			t.Errorf("%q recorded without content capture, in %q", said, s)
		}
	}
}

type capturedMessage struct {
	Role         string `json:"role"`
	FinishReason string `json:"finish_reason"`
	Parts        []struct {
		Type      string          `json:"type"`
		Content   string          `json:"content"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Response  string          `json:"response"`
	} `json:"parts"`
}

func messagesOf(t *testing.T, v string) []capturedMessage {
	t.Helper()
	var msgs []capturedMessage
	if err := json.Unmarshal([]byte(v), &msgs); err != nil {
		t.Fatalf("not the conventions' JSON messages: %v: %s", err, v)
	}
	return msgs
}

func TestContentCaptureOn(t *testing.T) {
	t.Parallel()
	tel := newTelemetry(otelinfergate.WithContentCapture(true))
	toolLoop(t, tel)

	agent := attrsOf(tel.span(t, "invoke_agent").Attributes())
	in := messagesOf(t, agent["gen_ai.input.messages"].AsString())
	if len(in) != 1 || in[0].Role != "user" || in[0].Parts[0].Type != "text" || in[0].Parts[0].Content != "Weather in Lisbon, forecast for Porto?" {
		t.Errorf("loop input %+v", in)
	}
	out := messagesOf(t, agent["gen_ai.output.messages"].AsString())
	if len(out) != 1 || out[0].Role != "assistant" || out[0].FinishReason != "stop" || out[0].Parts[0].Content != "Sunny in Lisbon; no forecast for Porto." {
		t.Errorf("loop output %+v", out)
	}

	var first, second map[string]string
	for _, turn := range tel.named("chat " + gatewaytest.DefaultModel) {
		a := attrsOf(turn.Attributes())
		m := map[string]string{"in": a["gen_ai.input.messages"].AsString(), "out": a["gen_ai.output.messages"].AsString()}
		if len(messagesOf(t, m["in"])) == 1 {
			first = m
		} else {
			second = m
		}
	}
	if first == nil || second == nil {
		t.Fatal("the two turns' inputs should differ")
	}
	calls := messagesOf(t, first["out"])
	if len(calls) != 1 || len(calls[0].Parts) != 2 || calls[0].Parts[0].Type != "tool_call" || calls[0].Parts[0].Name != "weather" ||
		string(calls[0].Parts[0].Arguments) != `{"city":"Lisbon"}` || calls[0].FinishReason != "tool_calls" {
		t.Errorf("first turn's output %+v", calls)
	}
	history := messagesOf(t, second["in"])
	var responses []string
	for _, m := range history {
		for _, p := range m.Parts {
			if p.Type == "tool_call_response" {
				responses = append(responses, p.ID+"="+p.Response)
			}
		}
	}
	if len(responses) != 2 || !strings.Contains(strings.Join(responses, "|"), "call_w=") {
		t.Errorf("second turn's tool results %v", responses)
	}

	weather := attrsOf(tel.span(t, "execute_tool weather").Attributes())
	if weather["gen_ai.tool.call.arguments"].AsString() != `{"city":"Lisbon"}` || weather["gen_ai.tool.call.result"].AsString() != "sunny in Lisbon" {
		t.Errorf("weather call content: %s / %s", weather["gen_ai.tool.call.arguments"].Emit(), weather["gen_ai.tool.call.result"].Emit())
	}
	if d := tel.span(t, "execute_tool forecast").Status().Description; !strings.Contains(d, "no forecast station near Porto") {
		t.Errorf("with content capture the failing tool's status quotes its error: %q", d)
	}
}

// The credentials are searched for in every string recorded, after every kind of operation with
// content capture on, including an error whose body echoes the key.
func TestNoCredentialRecorded(t *testing.T) {
	t.Parallel()
	const token = "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXRva2Vu.SIGNATURE"
	tel := newTelemetry(otelinfergate.WithContentCapture(true))
	srv := gatewaytest.New(t, gatewaytest.WithAcceptedAPIKey(testKey), gatewaytest.WithAcceptedAccessToken(token),
		gatewaytest.WithFailures(1, gatewaytest.OpenAIErrorReply(http.StatusUnauthorized, gatewaytest.OpenAIErrorFields{
			Message: "invalid api key " + testKey, Type: "authentication_error", Code: "invalid_api_key " + testKey})))
	client := srv.Client(tel.option, infergate.WithMaxRetries(0))
	ctx := context.Background()
	req := infergate.ChatRequest{Model: gatewaytest.DefaultModel, Messages: []infergate.Message{infergate.UserMessage("Hello")}}
	if _, err := client.Chat.Create(ctx, req); err == nil {
		t.Fatal("the injected 401 did not fail the call")
	}
	if _, err := client.Chat.Create(ctx, req); err != nil {
		t.Fatal(err)
	}
	stream, err := client.Chat.Stream(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	for stream.Next() {
	}
	if _, err := client.Embeddings.Create(ctx, infergate.EmbeddingRequest{Input: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Models.List(ctx); err != nil {
		t.Fatal(err)
	}
	// The access token goes out on the account's routes; the key they create is a credential too.
	if _, err := client.Keys.List(ctx); err != nil {
		t.Fatal(err)
	}
	created, err := client.Keys.Create(ctx, "ci")
	if err != nil {
		t.Fatal(err)
	}
	// Captured content names an image by its URL, never by the signature a presigned URL carries.
	image := infergate.ChatRequest{Model: gatewaytest.DefaultModel, Messages: []infergate.Message{infergate.UserMessageParts(
		infergate.TextPart("What is this?"), infergate.ImageURLPart("https://bucket.example/cat.png?X-Amz-Signature=PRESIGNEDsecret"))}}
	if _, err := client.Chat.Create(ctx, image); err != nil {
		t.Fatal(err)
	}
	// A transport that fails quoting the request's credential, as a proxy might.
	var quoting roundTripFunc = func(req *http.Request) (*http.Response, error) {
		return nil, fmt.Errorf("proxy refused %s", req.Header.Get("Authorization"))
	}
	broken := srv.Client(tel.option, infergate.WithMaxRetries(1), infergate.WithHTTPClient(&http.Client{Transport: quoting}))
	if _, err := broken.Chat.Create(ctx, req); err == nil {
		t.Fatal("the failing transport did not fail the call")
	}
	toolLoop(t, tel)
	all := tel.everyString(t)
	if len(all) < 100 {
		t.Fatalf("only %d strings recorded: the search would prove nothing", len(all))
	}
	for _, said := range []string{"invalid api key", "proxy refused", "https://bucket.example/cat.png"} {
		if containsAny(all, said) == "" {
			t.Errorf("%q was not recorded: the search proves nothing about what came with it", said)
		}
	}
	for _, secret := range []string{testKey, token, created.Key, gatewaytest.DefaultAPIKey, "0123456789abcdefSECRET", "PRESIGNEDsecret"} {
		if s := containsAny(all, secret); s != "" {
			t.Errorf("a credential was recorded: %q", s)
		}
	}
}
