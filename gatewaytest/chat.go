package gatewaytest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/infergate/infergate-go/internal/quota"
)

// DefaultModel is the first model of the default catalogue, and so the model
// that serves a chat completion whose request names no model, or one the
// gateway routes to its default (see WithModels). The deployed gateway's
// default is mistral-31-24b; a catalogue given with WithModels that lists it
// first has that default.
const DefaultModel = "llama-3.3-70b"

// Reply scripts one chat completion, streamed or not. The zero value is a
// valid, empty answer.
type Reply struct {
	Content string // the answer's text; a stream sends it as Chunks, or cut after each space
	// Reasoning is the model's thinking, sent before the content as "reasoning_content" (see
	// Quirks.ReasoningAs for the other spellings).
	Reasoning string
	ToolCalls []ToolCall // calls the model asks for; FinishReason then defaults to "tool_calls"
	// Chunks are the content pieces a stream sends; when empty the stream cuts
	// Content after each space. Ignored by non-streaming responses.
	Chunks []string
	// FinishReason defaults to "tool_calls" when ToolCalls is set, else "stop".
	FinishReason string
	// Model is the model the response reports; the default is the model that
	// serves the request: the catalogue's name of the model the request named,
	// or the default model (see WithModels and WithAnyModel).
	Model string
	// Usage defaults to word counts of the prompt and the reply. The same
	// numbers are sent as usage, usage_from_provider and usage_from_consumer.
	Usage  *Usage
	Quirks Quirks // odd gateway and provider behaviours to reproduce; none when zero
	// Respond, when set, computes the reply from the conversation the request sent (the tool
	// results of an earlier turn, say); the Reply it returns is used instead of this one.
	Respond func(conversation []Turn) Reply
	// Object is a value the model answers with, encoded as JSON: as the arguments of a call of
	// the function the request forces (tool_choice naming a function), else as the content.
	// Content and ToolCalls are ignored when it is set. When the function's parameters are the
	// SDK's envelope for a value that is not an object ({"value": ...}, for a string, a number or
	// a slice), a value not already so wrapped is sent in one. A request that forces a function and finds
	// no scripted reply gets a call whose arguments are a sample of the function's parameters
	// schema (see SampleFromSchema), so that code asking for typed values runs without scripting.
	Object any
	// MoreChoices are the answers of choices 1, 2, ... for a request with n > 1. Their Content,
	// Reasoning, Chunks, ToolCalls and FinishReason are used; a stream interleaves their chunks
	// with those of the first choice.
	MoreChoices []Reply
}

// ToolCall is one function call in a reply; several make parallel tool calls.
type ToolCall struct {
	ID        string // default "call_<n>", unique within the server
	Name      string // the function's name
	Arguments string // a JSON text, sent as a string as the wire requires
}

// Usage is a token count as sent in usage, usage_from_provider and usage_from_consumer.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`     // prompt_tokens: the request's tokens
	CompletionTokens int `json:"completion_tokens"` // completion_tokens: the reply's tokens
	TotalTokens      int `json:"total_tokens"`      // total_tokens, sent as given: not checked against the parts
}

// Quirks reproduce, on request, the odd things real gateways and providers
// do. Except for Delay, they only affect streams.
type Quirks struct {
	// EmptyArgsFirst sends an arguments fragment of exactly {} before each
	// call's real arguments.
	EmptyArgsFirst bool
	// BlankIDs puts "id":"" and "type":"" on every argument fragment after a
	// call's first delta, as some providers do.
	BlankIDs bool
	// WholeToolCalls sends each call, arguments included, in one delta.
	WholeToolCalls bool
	// ArgChunkSize cuts arguments into fragments of this many bytes; 0 sends
	// them in one fragment.
	ArgChunkSize int
	// FinishOnLastDelta puts finish_reason on the last content or argument
	// chunk instead of a chunk of its own.
	FinishOnLastDelta bool
	// InBandError sends an error event mid-stream and ends the stream there. With After 0 (or 1,
	// after the chunk that carries only the role) it comes before the first delta, as from a
	// provider that failed before answering: a client may send the request again or fall back.
	InBandError *StreamErrorEvent
	// JunkLines adds a non-JSON "data: provider failed, failover enabled" line
	// and a raw {"error":...} line without "data:" after the first event.
	JunkLines bool
	// NoDone leaves out the final data: [DONE].
	NoDone bool
	// TruncateAfter stops the stream silently after this many data events: no
	// finish_reason, no usage, no [DONE]. 0 disables it.
	TruncateAfter int
	// NoUsageChunk leaves out the final chunk with "choices":[] and usage.
	NoUsageChunk bool
	// Delay is slept between writes of a stream, and before a non-streaming
	// response. It ends early when the client goes away or the server closes.
	Delay time.Duration
	// CRLF ends lines with \r\n instead of \n.
	CRLF bool
	// Keepalive sends a ": keepalive" comment line before every event.
	Keepalive bool
	// ChunkSize overrides WithChunkSize for this reply.
	ChunkSize int
	// ContentParts sends each content piece as a list of text parts, as Mistral does.
	ContentParts bool
	// ReasoningAs spells the reasoning: "reasoning_content" (the default, DeepSeek and vLLM),
	// "reasoning" (OpenRouter, newer vLLM) or "thinking" (Mistral's thinking content parts).
	ReasoningAs string
	// InterleaveToolCalls sends the fragments of parallel tool calls interleaved, call by call in
	// turn, instead of one call after the other.
	InterleaveToolCalls bool
}

// StreamErrorEvent is an in-band error event:
// data: {"error":{"message":..,"type":..,"status":..}}.
type StreamErrorEvent struct {
	After   int    // data events sent before the error
	Message string // default "provider request failed"
	Type    string // default "provider_error"
	Status  int    // 0 sends "status": null
}

type chatRequest struct {
	Model      string            `json:"model"`
	Stream     bool              `json:"stream"`
	Messages   []json.RawMessage `json:"messages"`
	Tools      []requestTool     `json:"tools"`
	ToolChoice json.RawMessage   `json:"tool_choice"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type contentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

var (
	hexID   = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)
	dataURI = regexp.MustCompile(`^data:image/[a-zA-Z0-9.+-]+;base64,[A-Za-z0-9+/=]+$`)
)

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	var raw map[string]json.RawMessage
	rec, _ := r.Context().Value(recordKey{}).(*Request)
	if rec == nil || json.Unmarshal(rec.Body, &raw) != nil || raw == nil {
		validation(w, "json_invalid", []any{"body", 0}, "JSON decode error", map[string]any{})
		return
	}
	if _, ok := raw["messages"]; !ok {
		validation(w, "missing", []any{"body", "messages"}, "Field required", rec.JSON)
		return
	}
	var req chatRequest
	if err := json.Unmarshal(rec.Body, &req); err != nil {
		validation(w, "model_attributes_type", []any{"body"}, "Input should be a valid dictionary: "+err.Error(), rec.JSON)
		return
	}
	limit, admitted := s.admitRequest(w, r, req.Model, quota.ChatEstimate, (*limitState).refuseChat)
	if !admitted {
		return
	}
	if len(req.Messages) == 0 {
		chatError(w, "messages", "'messages' must contain at least one message", nil)
		return
	}
	prompt, lastUser, err := readMessages(req.Messages)
	if err != nil {
		chatError(w, "messages", err.Error(), nil)
		return
	}
	model, ok := s.resolveModel(w, req.Model, chatUse)
	if !ok {
		return
	}
	if how, down := s.outage(req.Model, model); down {
		limit.setHeaders(w.Header())
		failModel(w, how, req.Stream)
		code := strconv.Itoa(http.StatusBadGateway)
		if how == OutageRetryFailed && req.Stream {
			code = "stream_error" // the gateway answered 200 and failed in the stream
		}
		s.voidHold(r, model, prompt, code, "provider request failed: the model is unavailable")
		return
	}

	reply, scripted := s.nextReply(*rec, lastUser)
	if reply.Respond != nil {
		reply = reply.Respond(turns(req.Messages))
	}
	reply = answerObject(reply, scripted, req)
	c := s.completion(reply, model, prompt, s.now(r))
	if req.Stream {
		limit.setHeaders(w.Header())
		switch sent := s.stream(w, r, c); {
		case !sent:
			s.voidHold(r, model, prompt, "client_disconnected", "the client went away during the stream")
		case c.Quirks.InBandError != nil:
			s.voidHold(r, model, prompt, "stream_error", "the provider sent an error in the stream")
		case !streamSendsUsage(c):
			s.voidHold(r, model, prompt, "stream_incomplete", "the stream ended without its usage")
		default:
			s.recordUsage(limit, model, c.Usage)
			s.bill(r, model, chatEndpoint, c.Usage.PromptTokens, c.Usage.CompletionTokens)
		}
		return
	}
	if !s.sleep(r, reply.Quirks.Delay) {
		s.voidHold(r, model, prompt, "client_disconnected", "the client went away before the answer")
		return
	}
	s.recordUsage(limit, model, c.Usage).setHeaders(w.Header())
	s.bill(r, model, chatEndpoint, c.Usage.PromptTokens, c.Usage.CompletionTokens)
	writeJSON(w, http.StatusOK, c.body())
}

// chatError writes the OpenAI-style 400 the chat route uses for bad input.
func chatError(w http.ResponseWriter, param, msg string, code any) {
	writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "param": param, "code": code,
	}})
}

// readMessages checks the messages and returns the prompt's word count and
// the text of the last user message.
func readMessages(msgs []json.RawMessage) (words int, lastUser string, err error) {
	for i, rm := range msgs {
		var m message
		if json.Unmarshal(rm, &m) != nil || m.Role == "" {
			return 0, "", fmt.Errorf("messages[%d] must be an object with a role", i)
		}
		var text string
		var str string
		var parts []contentPart
		switch {
		case len(m.Content) == 0 || string(m.Content) == "null":
		case json.Unmarshal(m.Content, &str) == nil:
			text = str
		case json.Unmarshal(m.Content, &parts) == nil:
			var texts []string
			for j, p := range parts {
				switch p.Type {
				case "text":
					texts = append(texts, p.Text)
				case "image_url":
					if p.ImageURL == nil || !validImageURL(p.ImageURL.URL) {
						return 0, "", fmt.Errorf("messages[%d].content[%d].image_url.url must be an https URL or a data:image/...;base64 URI", i, j)
					}
				}
			}
			text = strings.Join(texts, " ")
		default:
			return 0, "", fmt.Errorf("messages[%d].content must be a string or an array of content parts", i)
		}
		words += len(strings.Fields(text))
		if m.Role == "user" {
			lastUser = text
		}
	}
	return words, lastUser, nil
}

func validImageURL(u string) bool {
	return strings.HasPrefix(u, "https://") || dataURI.MatchString(u)
}

// nextReply pops the scripted queue, falling back to the responder, and
// without one to DefaultAnswer, so that tests that script nothing still get a
// predictable answer. The responder is called without the server's lock, so
// that it may use the server.
func (s *Server) nextReply(rec Request, lastUser string) (r Reply, scripted bool) {
	s.mu.Lock()
	if len(s.replies) > 0 {
		r = s.replies[0]
		s.replies = s.replies[1:]
		s.mu.Unlock()
		return r, true
	}
	s.mu.Unlock()
	if s.cfg.responder != nil {
		return s.cfg.responder(rec), true
	}
	return Reply{Content: DefaultAnswer(lastUser)}, false
}

// completion is a reply with every default resolved.
type completion struct {
	Reply
	id      string
	created int64
}

func (s *Server) completion(r Reply, model string, promptWords int, now time.Time) completion {
	n := s.nextID()
	if r.Model == "" {
		r.Model = model
	}
	r = s.withDefaults(r)
	r.MoreChoices = append([]Reply(nil), r.MoreChoices...)
	for i := range r.MoreChoices {
		r.MoreChoices[i] = s.withDefaults(r.MoreChoices[i])
	}
	if r.Usage == nil {
		out := len(strings.Fields(r.Content))
		for _, tc := range r.ToolCalls {
			out += 1 + len(tc.Arguments)/4
		}
		r.Usage = &Usage{PromptTokens: promptWords, CompletionTokens: out, TotalTokens: promptWords + out}
	}
	return completion{Reply: r, id: fmt.Sprintf("chatcmpl-%032x", n), created: now.Unix()}
}

// withDefaults gives tool calls their ids and the reply its finish reason.
func (s *Server) withDefaults(r Reply) Reply {
	if len(r.ToolCalls) > 0 {
		r.ToolCalls = append([]ToolCall(nil), r.ToolCalls...)
		for i := range r.ToolCalls {
			if r.ToolCalls[i].ID == "" {
				r.ToolCalls[i].ID = fmt.Sprintf("call_%d", s.nextID())
			}
		}
	}
	if r.FinishReason == "" {
		r.FinishReason = "stop"
		if len(r.ToolCalls) > 0 {
			r.FinishReason = "tool_calls"
		}
	}
	return r
}

// message renders a reply as a non-streamed answer's message.
func (r Reply) message(q Quirks) map[string]any {
	msg := map[string]any{"role": "assistant", "content": r.Content}
	if r.Reasoning != "" {
		if q.ReasoningAs == "thinking" {
			msg["content"] = []any{thinkingPart(r.Reasoning), map[string]any{"type": "text", "text": r.Content}}
		} else {
			msg[reasoningKey(q)] = r.Reasoning
		}
	}
	if len(r.ToolCalls) > 0 {
		if r.Content == "" && r.Reasoning == "" {
			msg["content"] = nil
		}
		calls := make([]any, len(r.ToolCalls))
		for i, tc := range r.ToolCalls {
			calls[i] = map[string]any{"id": tc.ID, "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}}
		}
		msg["tool_calls"] = calls
	}
	return msg
}

func reasoningKey(q Quirks) string {
	if q.ReasoningAs == "reasoning" {
		return "reasoning"
	}
	return "reasoning_content"
}

func thinkingPart(text string) map[string]any {
	return map[string]any{"type": "thinking", "thinking": []any{map[string]any{"type": "text", "text": text}}}
}

func (c completion) body() map[string]any {
	choices := []any{map[string]any{"index": 0, "message": c.message(c.Quirks), "finish_reason": c.FinishReason, "logprobs": nil}}
	for i, r := range c.MoreChoices {
		choices = append(choices, map[string]any{"index": i + 1, "message": r.message(c.Quirks), "finish_reason": r.FinishReason, "logprobs": nil})
	}
	return map[string]any{
		"id":                  c.id,
		"object":              "chat.completion",
		"created":             c.created,
		"model":               c.Model,
		"choices":             choices,
		"usage":               c.Usage,
		"usage_from_provider": c.Usage,
		"usage_from_consumer": c.Usage,
		"system_fingerprint":  "",
	}
}
