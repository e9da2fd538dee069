package infergate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/infergate/infergate-go/internal/schema"
	"github.com/infergate/infergate-go/internal/typed"
)

// ObjectMode says how GenerateObject and StreamObject ask the model for a value.
type ObjectMode uint8

// The ways of asking for a value.
const (
	// ObjectModeAuto asks as ObjectModeTool does; when the model answers with text instead of the
	// call (providers that ignore tool_choice), the text is read as ObjectModePrompt reads it, and
	// if that fails too the next attempt is an ObjectModePrompt one.
	ObjectModeAuto ObjectMode = iota
	// ObjectModeTool offers one function whose parameters are the value's schema, and forces the
	// model to call it (tool_choice); the call's arguments are the value. This works through the
	// deployed gateway, which forwards tools and tool_choice.
	ObjectModeTool
	// ObjectModeJSONSchema sends response_format {"type":"json_schema",...} and reads the value
	// from the answer's text. Only for servers that honour response_format: the deployed gateway
	// drops it, so the model never sees the schema.
	ObjectModeJSONSchema
	// ObjectModePrompt puts the schema in a system message and reads the value out of the answer's
	// text, past <think>...</think> blocks, Markdown fences and prose around it: the value the text
	// starts with; else the first complete object or array (when T is one); else, for a string,
	// number, boolean or null, the first Markdown fence holding one, else the only number or
	// double-quoted string in the prose (several are refused, not guessed between).
	ObjectModePrompt
)

// String names the mode.
func (m ObjectMode) String() string {
	switch m {
	case ObjectModeAuto:
		return "auto"
	case ObjectModeTool:
		return "tool"
	case ObjectModeJSONSchema:
		return "json_schema"
	case ObjectModePrompt:
		return "prompt"
	}
	return fmt.Sprintf("ObjectMode(%d)", uint8(m))
}

// defaultObjectAttempts is the number of model turns GenerateObject takes at most by default.
const defaultObjectAttempts = 3

// ObjectSpec says how to ask for a value. The zero value asks in ObjectModeAuto, with up to 3
// model turns.
type ObjectSpec struct {
	// Name names the value to the model (the function's name in ObjectModeTool); it defaults to
	// the Go type's name, made a valid function name. Letters, digits, '_' and '-', at most 64.
	Name string
	// Description tells the model what the value is for.
	Description string
	Mode        ObjectMode // how to ask: ObjectModeAuto when zero
	// MaxAttempts bounds the model turns in all, repair turns included (3 when zero; a negative
	// bound is refused); 1 means no repair turn.
	MaxAttempts int
}

// Object is a value the model produced.
type Object[T any] struct {
	Value      T               // decoded, and valid against T's schema
	Raw        json.RawMessage // the JSON text Value was decoded from
	Completion *ChatCompletion // the last model turn
	Mode       ObjectMode      // the mode that produced it: ObjectModeAuto reports how the value came
	Attempts   int             // model turns taken
	Usage      Usage           // tokens summed over the attempts, as Usage.Add sums
}

// ErrNoObject matches the error of GenerateObject and StreamObject when the model gave no valid
// value (an *ObjectError).
var ErrNoObject = errors.New("infergate: the model gave no valid object")

// ObjectError is the failure to get a value out of the model: every attempt gave text that is not
// JSON, or JSON that breaks the schema or does not decode into the type, or the answer was cut
// short. Errors of the calls themselves (HTTP, the stream) are returned as they are instead.
type ObjectError struct {
	Attempts     int          // model turns taken, repair turns included
	Raw          string       // the last answer's text or call arguments, as the model sent them
	Err          error        // why the last answer was refused: a decoding or validation error
	FinishReason FinishReason // why the last answer ended; FinishReasonLength means cut short
	Messages     []Message    // the conversation: what was sent, each answer and each repair turn
	Usage        Usage        // tokens summed over the attempts, as Usage.Add sums
}

// Error says what went wrong, first of all when the answer was cut short.
func (e *ObjectError) Error() string {
	switch e.FinishReason {
	case FinishReasonLength:
		return sprintf("infergate: no object: the answer was cut short at the token limit (finish_reason length) after %s; raise MaxTokens or ask for less: %v",
			plural(e.Attempts, "attempt"), e.Err)
	case FinishReasonContentFilter:
		return sprintf("infergate: no object: a content filter withheld the answer after %s: %v", plural(e.Attempts, "attempt"), e.Err)
	}
	return sprintf("infergate: no valid object after %s: %v", plural(e.Attempts, "attempt"), e.Err)
}

// Unwrap returns the last decoding or validation error.
func (e *ObjectError) Unwrap() error { return e.Err }

// Is matches ErrNoObject.
func (e *ObjectError) Is(target error) bool { return target == ErrNoObject }

// GenerateObject asks the model for a value of type T and returns it decoded and checked against
// T's schema (see SchemaFor). An answer that is not JSON, breaks the schema or does not decode is
// sent back to the model with what is wrong (as the call's result in ObjectModeTool, as a user
// turn otherwise) until spec.MaxAttempts model turns; an answer cut short (finish_reason length),
// filtered or refused ends the attempts at once. T can be of any JSON kind: in ObjectModeTool and
// ObjectModeAuto, where the call's arguments must be an object, a value that is not one (a string,
// a number, a slice) is asked for as {"value": ...}, and Object.Raw is the value's JSON. The
// request's ToolChoice is replaced, and in ObjectModeJSONSchema its Extra["response_format"] (whose
// schema is T's, a scalar too: a server that wants an object there will refuse it).
//
// POST /api/v1/chat/completions, once per attempt
func GenerateObject[T any](ctx context.Context, chat *ChatService, req ChatRequest, spec ObjectSpec, opts ...Option) (*Object[T], error) {
	var value T
	run, err := newObjectRun(chat, req, spec, reflect.TypeFor[T](), valueInto(&value), opts)
	if err != nil {
		return nil, err
	}
	opts = append(slices.Clip(opts), withSticky(new(stickyModel)))
	answer, err := run.loop(ctx, func(ctx context.Context, req ChatRequest, _ ObjectMode) (*ChatCompletion, error) {
		return chat.Create(ctx, req, opts...)
	})
	if err != nil {
		return nil, err
	}
	return &Object[T]{Value: value, Raw: answer.raw, Completion: answer.completion, Mode: answer.mode,
		Attempts: run.attempts, Usage: run.usage}, nil
}

// objectRun is the part of an object request that does not depend on T.
type objectRun struct {
	spec     ObjectSpec
	t        reflect.Type
	schema   *typeSchema
	req      ChatRequest // the caller's
	messages []Message   // the conversation so far
	mode     ObjectMode  // of the next attempt
	objectSink
	attempts int
	usage    Usage
}

// objectAnswer is an attempt's accepted value.
type objectAnswer struct {
	raw        json.RawMessage
	completion *ChatCompletion
	mode       ObjectMode
}

// objectSink is how an object run fills the caller's T.
type objectSink struct {
	// decode decodes a value's JSON, already checked against its schema.
	decode func(raw []byte) error
	// prove decodes a value's text and proves it valid against a schema in one pass (see
	// typed.DecodeProven); when it cannot, it reports false and the value is validated and decoded as
	// without it.
	prove func(text string, checked *schema.Checked) bool
}

// valueInto returns the sink that fills *dst; a text prove cannot take leaves *dst as it was.
func valueInto[T any](dst *T) objectSink {
	return objectSink{
		decode: func(raw []byte) error {
			var fresh T
			err := typed.Decode(raw, &fresh)
			*dst = fresh
			return err
		},
		prove: func(text string, checked *schema.Checked) bool {
			var fresh T
			if !typed.DecodeProven(text, &fresh, checked) {
				return false
			}
			*dst = fresh
			return true
		},
	}
}

func newObjectRun(chat *ChatService, req ChatRequest, spec ObjectSpec, t reflect.Type, sink objectSink, opts []Option) (*objectRun, error) {
	if chat == nil {
		return nil, invalid("chat", "is nil: pass client.Chat")
	}
	if spec.Mode > ObjectModePrompt {
		return nil, invalid("ObjectSpec.Mode", "unknown mode %d", spec.Mode)
	}
	if spec.MaxAttempts < 0 {
		return nil, invalid("ObjectSpec.MaxAttempts", "must not be negative, got %d", spec.MaxAttempts)
	}
	spec.MaxAttempts = positiveOr(spec.MaxAttempts, defaultObjectAttempts)
	if spec.Name == "" {
		spec.Name = defaultObjectName(t)
	}
	if !isFunctionName(spec.Name) {
		return nil, invalid("ObjectSpec.Name", "%q must be 1 to 64 letters, digits, '_' or '-'", spec.Name)
	}
	ts := schemaOf(t)
	if err := ts.forObjects(); err != nil {
		return nil, invalid("type "+t.String(), "%v", err)
	}
	if slices.ContainsFunc(req.Tools, func(tool Tool) bool { return tool.Function.Name == spec.Name }) {
		return nil, invalid("ObjectSpec.Name", "%q is already the name of one of the request's tools", spec.Name)
	}
	r := &objectRun{spec: spec, t: t, schema: ts, req: req, mode: spec.Mode, objectSink: sink}
	r.messages = slices.Clone(req.Messages)
	if spec.Mode == ObjectModePrompt {
		r.messages = append([]Message{SystemMessage(r.instructions())}, r.messages...)
	}
	// The request is checked before anything is sent, as Create would check it, but for the
	// object's own tool and tool choice, which are valid by construction: the name was checked
	// above, and the parameters are the JSON of a schema. Checking them would encode the schema
	// again on every call.
	first := r.request()
	if r.mode == ObjectModeAuto || r.mode == ObjectModeTool {
		first.Tools, first.ToolChoice = first.Tools[:len(first.Tools)-1], ToolChoice{}
	}
	return r, first.Validate()
}

// defaultObjectName is the Go type's name made a valid function name.
func defaultObjectName(t reflect.Type) string {
	name := functionChars(deref(t).Name())
	if name == "" || name == "_" {
		return "answer"
	}
	return name[:min(len(name), 64)]
}

// functionChars replaces each run of characters a function's name cannot hold with '_'.
func functionChars(name string) string {
	valid := isFunctionRune
	if !strings.ContainsFunc(name, func(r rune) bool { return !valid(r) }) {
		return name
	}
	var b strings.Builder
	inRun := false
	for _, r := range name {
		switch {
		case valid(r):
			b.WriteRune(r)
		case !inRun:
			b.WriteByte('_')
		}
		inRun = !valid(r)
	}
	return b.String()
}

// instructions ask for the value in text, with its schema.
func (r *objectRun) instructions() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Answer with a single JSON value, %s", r.spec.Name)
	if r.spec.Description != "" {
		fmt.Fprintf(&b, " (%s)", r.spec.Description)
	}
	b.WriteString(", that matches this JSON Schema, and nothing else: no prose, no Markdown.\n")
	b.Write(r.schema.sent)
	return b.String()
}

// request is the next attempt's request.
func (r *objectRun) request() ChatRequest {
	req := r.req
	req.Messages = r.messages
	switch r.mode {
	case ObjectModeAuto, ObjectModeTool:
		tool := functionTool(r.spec.Name, r.spec.Description, r.schema.call.sent)
		if r.schema.call.strict {
			tool.Function.Strict = Ptr(true)
		}
		req.Tools = append(slices.Clone(req.Tools), tool)
		req.ToolChoice = ToolChoiceFunction(r.spec.Name)
	case ObjectModeJSONSchema:
		format := map[string]any{"name": r.spec.Name, "schema": r.schema.sent, "strict": r.schema.strict}
		if r.spec.Description != "" {
			format["description"] = r.spec.Description
		}
		req.Extra = maps.Clone(req.Extra)
		if req.Extra == nil {
			req.Extra = map[string]any{}
		}
		req.Extra["response_format"] = map[string]any{"type": "json_schema", "json_schema": format}
	}
	return req
}

// turnFunc takes one model turn.
type turnFunc func(ctx context.Context, req ChatRequest, mode ObjectMode) (*ChatCompletion, error)

// loop takes model turns until one gives a valid value or the attempts run out.
func (r *objectRun) loop(ctx context.Context, turn turnFunc) (*objectAnswer, error) {
	for {
		r.attempts++
		mode := r.mode
		answer, err := turn(ctx, r.request(), mode)
		if err != nil {
			return nil, err
		}
		r.usage = r.usage.Add(answer.UsageOrEstimate())
		msg := firstMessage(answer, r.attempts)
		r.messages = append(r.messages, msg)
		got, raw, failure := r.evaluate(ctx, &msg, mode)
		if failure == nil {
			return &objectAnswer{raw: raw, completion: answer, mode: got}, nil
		}
		finish := answer.FinishReason()
		final := finish == FinishReasonLength || finish == FinishReasonContentFilter || msg.Refusal != ""
		if final || r.attempts >= r.spec.MaxAttempts {
			return nil, &ObjectError{Attempts: r.attempts, Raw: r.lastRaw(&msg), Err: failure, FinishReason: finish,
				Messages: r.messages, Usage: r.usage}
		}
		r.repair(&msg, mode, failure)
	}
}

// evaluate reads the value out of an answer: it returns the mode that produced it and its JSON,
// or why there is none.
func (r *objectRun) evaluate(ctx context.Context, msg *Message, mode ObjectMode) (ObjectMode, json.RawMessage, error) {
	if msg.Refusal != "" {
		return mode, nil, fmt.Errorf("the model refused: %s", msg.Refusal)
	}
	if mode == ObjectModeAuto || mode == ObjectModeTool {
		if call := r.ownCall(msg); call != nil {
			args := strings.TrimSpace(call.Function.Arguments)
			if args == "" {
				args = "{}"
			}
			raw, err := r.checkCall(ctx, args)
			return ObjectModeTool, raw, err
		}
		if mode == ObjectModeTool {
			return mode, nil, fmt.Errorf("the model did not call %s", r.spec.Name)
		}
		mode = ObjectModePrompt
	}
	raw, err := typed.FirstJSON(msg.Content, schemaOf(r.t).schema)
	if err != nil {
		return mode, nil, err
	}
	if r.proven(ctx, string(raw), r.schema.resolved) {
		return mode, raw, nil
	}
	return mode, raw, r.check(ctx, raw, r.schema.resolved, "the value")
}

// proven reports whether r.prove decoded text and proved it valid against schema.
func (r *objectRun) proven(ctx context.Context, text string, checked *schema.Checked) bool {
	return ctx.Err() == nil && r.prove(text, checked)
}

// ownCall returns the answer's call of the object's function, nil when it has none.
func (r *objectRun) ownCall(msg *Message) *ToolCall {
	for i := range msg.ToolCalls {
		if msg.ToolCalls[i].Function.Name == r.spec.Name {
			return &msg.ToolCalls[i]
		}
	}
	return nil
}

func (r *objectRun) lastRaw(msg *Message) string {
	if call := r.ownCall(msg); call != nil {
		return call.Function.Arguments
	}
	return msg.Content
}

// checkCall validates the arguments of the object's call and decodes the value they carry; it
// returns the value's JSON (the arguments, or what their envelope holds).
func (r *objectRun) checkCall(ctx context.Context, text string) (json.RawMessage, error) {
	args := json.RawMessage(text)
	if !r.schema.wrapped {
		if r.proven(ctx, text, r.schema.call.resolved) {
			return args, nil
		}
		return args, r.check(ctx, args, r.schema.call.resolved, "the arguments")
	}
	if err := r.validate(ctx, args, r.schema.call.resolved, "the arguments"); err != nil {
		return args, err
	}
	var envelope map[string]json.RawMessage
	_ = json.Unmarshal(args, &envelope) // valid: an object with its one property
	return envelope[envelopeKey], r.decode(envelope[envelopeKey])
}

// check validates a value against a schema and decodes it.
func (r *objectRun) check(ctx context.Context, raw json.RawMessage, checked *schema.Checked, whole string) error {
	if err := r.validate(ctx, raw, checked, whole); err != nil {
		return err
	}
	return r.decode(raw)
}

// validate checks a value against a schema; whole names the value to the model.
func (r *objectRun) validate(ctx context.Context, raw json.RawMessage, checked *schema.Checked, whole string) error {
	if checked.ProvenValid(ctx, raw) {
		return nil
	}
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		return fmt.Errorf("not valid JSON: %w", err)
	}
	err := checked.Validate(ctx, instance)
	if err == nil || errors.Is(err, ErrSchemaTooCostly) || ctx.Err() != nil && err == context.Cause(ctx) {
		return err
	}
	return &schemaMismatch{why: schema.Explain(checked.Schema(), instance, whole, err), err: err}
}

// schemaMismatch is a value its schema refuses: Error says why in plain words, for the model (the
// repair turn) and for people; Unwrap returns the validator's error.
type schemaMismatch struct {
	why string
	err error
}

func (e *schemaMismatch) Error() string { return e.why }
func (e *schemaMismatch) Unwrap() error { return e.err }

// reason is a failure as the middle of a sentence.
func reason(failure error) string {
	return strings.TrimSuffix(failure.Error(), ".")
}

// repair tells the model what was wrong with its answer, and chooses the next attempt's mode.
func (r *objectRun) repair(msg *Message, mode ObjectMode, failure error) {
	own := r.ownCall(msg)
	for _, call := range msg.ToolCalls {
		result := fmt.Sprintf("error: only %s can be called here", r.spec.Name)
		if own != nil && call.ID == own.ID {
			result = fmt.Sprintf("error: the arguments are not valid: %s. Call %s again with corrected arguments.", reason(failure), r.spec.Name)
		}
		r.messages = append(r.messages, ToolResultMessage(call.ID, result))
	}
	switch {
	case own != nil:
		return // the call's result says it all
	case mode == ObjectModeTool:
		r.messages = append(r.messages, UserMessage(fmt.Sprintf("Call %s with the answer as its arguments.", r.spec.Name)))
	case mode == ObjectModeAuto:
		// The model answered with text, which did not hold the value: ask for the text it can give.
		r.mode = ObjectModePrompt
		r.messages = append(r.messages, UserMessage(fmt.Sprintf("That answer is not usable: %s. %s", reason(failure), r.instructions())))
	default:
		r.messages = append(r.messages, UserMessage(fmt.Sprintf("That answer is not usable: %s. Answer again with only the corrected JSON value.", reason(failure))))
	}
}
