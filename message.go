package infergate

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Role is who wrote a message.
type Role string

// The roles of a conversation.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one turn of a conversation, in requests and in answers. Content holds plain text;
// Parts, when set, replaces it with a list of text and image parts. A request whose message has
// both, with a Content other than the parts' text, is refused before sending rather than losing it.
//
// In answers, Content is always the whole text, even when the server sent the content as a list of
// parts; Reasoning is the model's thinking, from whichever of "reasoning_content", "reasoning" or
// thinking parts the server used; Parts is set only when the list held a part that is neither text
// nor thinking (an image, or a type this SDK does not model), so that nothing is lost; Extra holds
// the message's other fields.
type Message struct {
	Role       Role          // who wrote it: RoleSystem, RoleUser, RoleAssistant or RoleTool
	Content    string        // the text; the whole text in answers, even when sent as parts
	Parts      []ContentPart // text and image parts, sent instead of Content when set
	Name       string        // optional name of the author
	ToolCalls  []ToolCall    // the calls an assistant asked for
	ToolCallID string        // for a tool result: the call it answers
	Refusal    string        // in answers: why the model declined, when it did
	// Reasoning is a reasoning model's thinking. An assistant message that carries it sends it back
	// as "reasoning_content", which thinking models that call tools need on the next turn.
	Reasoning string
	// Extra holds the fields of an answer's message that this type does not model, as the server
	// sent them (OpenRouter's "reasoning_details", say; a streamed answer's merged as RawFields
	// says), and sends them back with the message. Set it to send fields of your own; a key that
	// names a field of Message is refused.
	Extra RawFields
}

// wireAnswerMessage reads every spelling a server may use for a message.
type wireAnswerMessage struct {
	Role       Role        `json:"role"`
	Content    wireContent `json:"content"`
	Name       string      `json:"name"`
	ToolCalls  []ToolCall  `json:"tool_calls"`
	ToolCallID string      `json:"tool_call_id"`
	Refusal    string      `json:"refusal"`
	Reasoning1 string      `json:"reasoning_content"`
	Reasoning2 string      `json:"reasoning"`
	Extra      RawFields   `json:"-"`
}

// UnmarshalJSON reads the modelled fields, then keeps the others.
func (w *wireAnswerMessage) UnmarshalJSON(b []byte) error {
	type plain wireAnswerMessage
	if err := json.Unmarshal(b, (*plain)(w)); err != nil {
		return err
	}
	w.Extra = unmodelled(b, messageKeys)
	return nil
}

// MarshalJSON writes the wire form: Parts as a list when set, otherwise Content as a string; then
// Extra's fields. Extra fields that ChatRequest.Validate refuses are an error.
func (m Message) MarshalJSON() ([]byte, error) {
	if err := m.Extra.validate("", messageKeys); err != nil {
		return nil, err
	}
	for i, c := range m.ToolCalls {
		if err := c.Extra.validate("ToolCalls["+strconv.Itoa(i)+"].", toolCallKeys); err != nil {
			return nil, err
		}
	}
	return appendMessage(nil, &m)
}

// UnmarshalJSON reads content given as a string, a list of parts, or null, reasoning in any of its
// spellings, and keeps the fields Message does not model in Extra.
func (m *Message) UnmarshalJSON(b []byte) error {
	var w wireAnswerMessage
	if err := w.UnmarshalJSON(b); err != nil {
		return err
	}
	*m = w.message()
	return nil
}

func (w *wireAnswerMessage) message() Message {
	return Message{Role: w.Role, Content: w.Content.text, Parts: w.Content.parts, Name: w.Name,
		ToolCalls: w.ToolCalls, ToolCallID: w.ToolCallID, Refusal: w.Refusal,
		Reasoning: joinReasoning(w.Reasoning1, w.Reasoning2, w.Content.reasoning), Extra: w.Extra}
}

// Text returns the message's text: Content, or the text parts joined when it has parts.
func (m Message) Text() string {
	if m.Parts == nil {
		return m.Content
	}
	var b strings.Builder
	for _, p := range m.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// ToolCall is a function call the model asked for. Extra holds the call's fields that it does not
// model, as the server sent them (Gemini's "extra_content", which carries the call's thought
// signature), and sends them back with the call; a key that names a field of ToolCall, or
// "index", is refused.
type ToolCall struct {
	ID       string       `json:"id"`       // the call's id, which the tool's answer names as Message.ToolCallID
	Type     string       `json:"type"`     // "function"
	Function FunctionCall `json:"function"` // the function to call and its arguments
	// Extra holds the call's fields that ToolCall does not model (Gemini's "extra_content"), as
	// received, and sends them back.
	Extra RawFields `json:"-"`
}

// MarshalJSON writes the call's wire form, Extra's fields included. Extra fields that
// ChatRequest.Validate refuses are an error.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	if err := c.Extra.validate("", toolCallKeys); err != nil {
		return nil, err
	}
	return appendToolCall(nil, &c), nil
}

// UnmarshalJSON reads the call's fields and keeps those ToolCall does not model in Extra.
func (c *ToolCall) UnmarshalJSON(b []byte) error {
	type plain ToolCall
	if err := json.Unmarshal(b, (*plain)(c)); err != nil {
		return err
	}
	c.Extra = unmodelled(b, toolCallKeys)
	return nil
}

// FunctionCall names a function and carries its arguments.
type FunctionCall struct {
	Name      string `json:"name"`      // the function's name, as declared in FunctionDefinition.Name
	Arguments string `json:"arguments"` // a JSON object as text; decode it with json.Unmarshal
}

// UnmarshalJSON reads arguments sent as a string, as the wire requires, or as a bare JSON object,
// as some servers send them; an object is kept as its JSON text.
func (f *FunctionCall) UnmarshalJSON(b []byte) error {
	var w struct {
		Name      string   `json:"name"`
		Arguments wireArgs `json:"arguments"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*f = FunctionCall{Name: w.Name, Arguments: string(w.Arguments)}
	return nil
}

// SystemMessage returns a system instruction.
func SystemMessage(text string) Message { return Message{Role: RoleSystem, Content: text} }

// UserMessage returns a user turn of plain text.
func UserMessage(text string) Message { return Message{Role: RoleUser, Content: text} }

// UserMessageParts returns a user turn mixing text and images, e.g.
// UserMessageParts(TextPart("What is this?"), ImageURLPart("https://example.com/cat.png")).
func UserMessageParts(parts ...ContentPart) Message { return Message{Role: RoleUser, Parts: parts} }

// AssistantMessage returns an earlier answer of the model, to continue a conversation.
func AssistantMessage(text string) Message { return Message{Role: RoleAssistant, Content: text} }

// ToolResultMessage returns the result of running the tool call callID, to send back to the model.
func ToolResultMessage(callID, result string) Message {
	return Message{Role: RoleTool, Content: result, ToolCallID: callID}
}

// ContentPart is a piece of a message: text or an image. Parts of other types that a server sends
// (thinking, audio, or types this SDK does not model) keep their JSON in Raw and are sent back as
// they came.
type ContentPart struct {
	Type     string          `json:"type"`                // "text" or "image_url"; others are kept in Raw
	Text     string          `json:"text,omitempty"`      // the text, for a "text" part
	ImageURL *ImageURL       `json:"image_url,omitempty"` // the image, for an "image_url" part
	Raw      json.RawMessage `json:"-"`                   // the part as received, for types other than text and image_url
}

type plainContentPart ContentPart

// MarshalJSON sends Raw as it is when set, and the typed fields otherwise.
func (p ContentPart) MarshalJSON() ([]byte, error) {
	if len(p.Raw) > 0 {
		return p.Raw, nil
	}
	return json.Marshal(plainContentPart(p))
}

// UnmarshalJSON decodes text and image parts into their fields and keeps any other part in Raw.
func (p *ContentPart) UnmarshalJSON(b []byte) error {
	var w plainContentPart
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*p = ContentPart(w)
	if p.Type != "text" && p.Type != "image_url" {
		p.Text, p.ImageURL, p.Raw = "", nil, append(json.RawMessage(nil), b...)
	}
	return nil
}

// ImageURL locates an image: an https URL or a data URI (data:image/png;base64,...).
type ImageURL struct {
	URL    string `json:"url"`              // an https URL, or a data URI holding the image
	Detail string `json:"detail,omitempty"` // "low", "high" or "auto"
}

// TextPart returns a text part.
func TextPart(text string) ContentPart { return ContentPart{Type: "text", Text: text} }

// ImageURLPart returns an image part for an https URL (or a data URI made elsewhere).
func ImageURLPart(u string) ContentPart {
	return ContentPart{Type: "image_url", ImageURL: &ImageURL{URL: u}}
}

// ImageBytesPart returns an image part carrying data inline as a data URI. The type is detected
// from the bytes; only JPEG, PNG, GIF and WebP are accepted.
func ImageBytesPart(data []byte) (ContentPart, error) {
	mime, err := detectImage(data)
	if err != nil {
		return ContentPart{}, err
	}
	uri := "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
	return ImageURLPart(uri), nil
}

// ImageFilePart reads an image file and returns it as an inline image part. The file's extension
// must agree with its content, which must be JPEG, PNG, GIF or WebP.
func ImageFilePart(path string) (ContentPart, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return ContentPart{}, errorf("infergate: reading image: %w", err)
	}
	mime, err := detectImage(data)
	if err != nil {
		return ContentPart{}, &ValidationError{Field: "image " + filepath.Base(path), Reason: err.(*ValidationError).Reason}
	}
	if want, known := imageExtensions[strings.ToLower(filepath.Ext(path))]; known && want != mime {
		return ContentPart{}, invalid("image "+filepath.Base(path), "extension says %s but the content is %s", want, mime)
	}
	return ImageBytesPart(data)
}

var imageExtensions = map[string]string{
	".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".gif": "image/gif", ".webp": "image/webp",
}

// detectImage returns the MIME type of an accepted image format.
func detectImage(data []byte) (string, error) {
	switch {
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return "image/jpeg", nil
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png", nil
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "image/gif", nil
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return "image/webp", nil
	}
	if len(data) == 0 {
		return "", invalid("image", "is empty")
	}
	return "", invalid("image", "type %s is not supported; use JPEG, PNG, GIF or WebP", http.DetectContentType(data))
}

// validate refuses only what cannot be sent: any role is passed through (providers accept roles
// such as "developer" that this SDK does not name), but a message needs one.
// The field names of its errors are built only on failure: a long history is validated on every turn.
func (m *Message) validate(index int) error {
	field := func(name string) string { return "Messages[" + strconv.Itoa(index) + "]." + name }
	if m.Role == "" {
		return invalid(field("Role"), "a message needs a role")
	}
	if m.Role == RoleTool && m.ToolCallID == "" {
		return invalid(field("ToolCallID"), "a tool result must name the call it answers")
	}
	if len(m.Extra) > 0 {
		if err := m.Extra.validate(field(""), messageKeys); err != nil {
			return err
		}
	}
	for i := range m.ToolCalls {
		if c := &m.ToolCalls[i]; len(c.Extra) > 0 {
			if err := c.Extra.validate(field("ToolCalls["+strconv.Itoa(i)+"]."), toolCallKeys); err != nil {
				return err
			}
		}
	}
	for i, p := range m.Parts {
		if err := p.validate(field("Parts[" + strconv.Itoa(i) + "]")); err != nil {
			return err
		}
	}
	// Parts replace Content on the wire; a Content that is not their text would be dropped
	// silently. An answer's message, sent back, holds both and they agree.
	if m.Parts != nil && m.Content != "" && m.Content != m.Text() {
		return invalid(field("Content"), "differs from the text of Parts, which are sent instead of it: set one, or Content to the parts' text")
	}
	return nil
}

func (p ContentPart) validate(field string) error {
	if len(p.Raw) > 0 {
		if !json.Valid(p.Raw) {
			return invalid(field+".Raw", "is not valid JSON")
		}
		return nil // a part received from a server goes back as it came
	}
	switch p.Type {
	case "text":
		return nil
	case "image_url":
		if p.ImageURL == nil {
			return invalid(field+".ImageURL", "an image part needs a URL")
		}
		return validateImageURL(field+".ImageURL.URL", p.ImageURL.URL)
	}
	return invalid(field+".Type", `must be "text" or "image_url", got %q`, p.Type)
}

// validateImageURL accepts an http or https URL (the provider fetches it), or a data URI whose
// declared type matches its bytes.
func validateImageURL(field, raw string) error {
	if rest, ok := strings.CutPrefix(raw, "data:"); ok {
		declared, payload, ok := strings.Cut(rest, ";base64,")
		if !ok {
			return invalid(field, "a data URI must be data:<mime>;base64,<data>")
		}
		// The first 16 base64 characters (12 bytes) are enough to recognise every accepted format.
		head, err := base64.StdEncoding.DecodeString(payload[:min(len(payload), 16)&^3])
		if err != nil {
			return invalid(field, "data URI payload is not base64: %v", err)
		}
		detected, err := detectImage(head)
		if err != nil {
			return invalid(field, "%s", err.(*ValidationError).Reason)
		}
		if detected != declared {
			return invalid(field, "data URI declares %s but the bytes are %s", declared, detected)
		}
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return invalid(field, "must be an http(s) URL or a data URI, got %.60q", displayURL(raw))
	}
	return nil
}

// Add returns the sum of two token counts, field by field, with the details when either has them.
// A negative count is read as 0 and a sum past math.MaxInt stays there, so that no count a server
// sends can wrap a total or give tokens back. ToolRunResult, ToolLimitError, Object and ObjectError
// sum their turns with it.
func (u Usage) Add(v Usage) Usage {
	sum := Usage{PromptTokens: addCount(u.PromptTokens, v.PromptTokens),
		CompletionTokens: addCount(u.CompletionTokens, v.CompletionTokens),
		TotalTokens:      addCount(u.TotalTokens, v.TotalTokens)}
	if u.PromptTokensDetails != nil || v.PromptTokensDetails != nil {
		x, y := orZero(u.PromptTokensDetails), orZero(v.PromptTokensDetails)
		sum.PromptTokensDetails = &PromptTokensDetails{CachedTokens: addCount(x.CachedTokens, y.CachedTokens),
			AudioTokens: addCount(x.AudioTokens, y.AudioTokens)}
	}
	if u.CompletionTokensDetails != nil || v.CompletionTokensDetails != nil {
		x, y := orZero(u.CompletionTokensDetails), orZero(v.CompletionTokensDetails)
		sum.CompletionTokensDetails = &CompletionTokensDetails{ReasoningTokens: addCount(x.ReasoningTokens, y.ReasoningTokens),
			AudioTokens:              addCount(x.AudioTokens, y.AudioTokens),
			AcceptedPredictionTokens: addCount(x.AcceptedPredictionTokens, y.AcceptedPredictionTokens),
			RejectedPredictionTokens: addCount(x.RejectedPredictionTokens, y.RejectedPredictionTokens)}
	}
	return sum
}

// addCount is the one sum of token counts: a negative count is read as 0, and the sum saturates at
// math.MaxInt.
func addCount(a, b int) int {
	a, b = max(a, 0), max(b, 0)
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// usageTokens is what a turn's usage counts against ToolLoop.MaxTokens: its total, or its input
// plus output where the total is absent.
func usageTokens(u Usage) int {
	if u.TotalTokens > 0 {
		return u.TotalTokens
	}
	return addCount(u.PromptTokens, u.CompletionTokens)
}

// orZero is *p, or the zero value for nil.
func orZero[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
