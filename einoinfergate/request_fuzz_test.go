package einoinfergate_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/einoinfergate"
)

// answerTransport answers every request with one short completion, in process.
type answerTransport struct{}

func (answerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_ = r.Body.Close()
	}
	body := `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader([]byte(body))), Request: r}, nil
}

var fuzzRoles = []schema.RoleType{schema.User, schema.Assistant, schema.System, schema.Tool, "narrator"}

// fuzzMessage is a message of each shape eino has, odd ones included, built from text; nil for
// one kind.
func fuzzMessage(role, kind byte, text string) *schema.Message {
	m := &schema.Message{Role: fuzzRoles[int(role)%len(fuzzRoles)], Content: text}
	switch kind % 9 {
	case 0:
		return nil
	case 1:
		m.UserInputMultiContent = []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeText, Text: text},
			{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{URL: &text}}}}
	case 2:
		m.UserInputMultiContent = []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeImageURL,
			Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{Base64Data: &text, MIMEType: text}}}}
	case 3:
		m.UserInputMultiContent = []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeImageURL}, {Type: schema.ChatMessagePartTypeAudioURL}}
	case 4:
		m.MultiContent = []schema.ChatMessagePart{{Type: schema.ChatMessagePartTypeImageURL}, {Type: schema.ChatMessagePartTypeText, Text: text}}
	case 5:
		m.AssistantGenMultiContent = []schema.MessageOutputPart{{Type: schema.ChatMessagePartTypeImageURL}, {Type: schema.ChatMessagePartTypeText, Text: text}}
	case 6:
		m.ToolCalls = []schema.ToolCall{{ID: text, Function: schema.FunctionCall{Name: "f", Arguments: text}}}
		m.ReasoningContent = text
	case 7:
		m.ToolCallID, m.ToolName = text, "f"
	case 8: // vendor fields in every form Extra may hold them
		m.ToolCalls = []schema.ToolCall{{ID: text, Function: schema.FunctionCall{Name: "f", Arguments: "{}"},
			Extra: map[string]any{einoinfergate.ExtraFields: text}}, {ID: "b"}}
		m.Extra = map[string]any{einoinfergate.ExtraFields: []byte(text),
			einoinfergate.ExtraToolCallFields: map[string]any{"1": text, text: []any{text}}}
	}
	return m
}

// fuzzTool is a tool of each shape eino has, odd ones included; nil for one kind.
func fuzzTool(kind byte, text string) *schema.ToolInfo {
	t := &schema.ToolInfo{Name: "f", Desc: text}
	switch kind % 6 {
	case 0:
		return nil
	case 1:
		t.ParamsOneOf = schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{text: {Type: schema.String, Enum: []string{text}}})
	case 2:
		t.ParamsOneOf = schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{text: nil})
	case 3:
		t.ParamsOneOf = schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"x": {Type: schema.Array, ElemInfo: &schema.ParameterInfo{Type: schema.Object, SubParams: map[string]*schema.ParameterInfo{text: nil}}}})
	case 4:
		t.ParamsOneOf = &schema.ParamsOneOf{}
	}
	return t
}

// FuzzRequest sends conversations, tools and options built from arbitrary bytes: whatever a caller
// passes, Generate and Stream return an answer or an error, never a panic.
func FuzzRequest(f *testing.F) {
	client, err := infergate.NewClient(infergate.WithAPIKey("k"), infergate.WithBaseURL("https://gateway.test"),
		infergate.WithHTTPClient(&http.Client{Transport: answerTransport{}}), infergate.WithMaxRetries(0))
	if err != nil {
		f.Fatal(err)
	}
	m, err := einoinfergate.NewChatModel(client, "m")
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte{0, 1}, []byte{1}, "hello", "allowed", false)
	f.Add([]byte{1, 6, 3, 7, 0, 2}, []byte{2, 3}, "image/png", "forced", true)
	f.Add([]byte{2, 4, 0, 5, 4, 0}, []byte{0, 4}, "", "sometimes", true)
	f.Add([]byte{1, 8}, []byte{}, `{"x":[1,"<&>"]}`, "", false)
	f.Fuzz(func(t *testing.T, shape, tools []byte, text, choice string, stream bool) {
		var input []*schema.Message
		for i := 0; i+1 < len(shape) && len(input) < 16; i += 2 {
			input = append(input, fuzzMessage(shape[i], shape[i+1], text))
		}
		var infos []*schema.ToolInfo
		for i := 0; i < len(tools) && i < 4; i++ {
			infos = append(infos, fuzzTool(tools[i], text))
		}
		opts := []model.Option{model.WithTools(infos), model.WithToolChoice(schema.ToolChoice(choice), text)}
		if bound, err := m.WithTools(infos); err == nil && bound == nil {
			t.Fatal("WithTools: no error and no model")
		}
		if !stream {
			if msg, err := m.Generate(context.Background(), input, opts...); err == nil && msg == nil {
				t.Fatal("Generate: no error and no message")
			}
			return
		}
		sr, err := m.Stream(context.Background(), input, opts...)
		if err != nil {
			return
		}
		sr.Close()
	})
}
