package infergate

import (
	"context"
	"errors"
	"iter"
	"reflect"
	"slices"
	"sync/atomic"

	"github.com/infergate/infergate-go/internal/partialjson"
	"github.com/infergate/infergate-go/internal/typed"
)

// ObjectStream is a value being generated. Range over Partials to watch it fill in, or call Wait;
// either runs it, and one goroutine may range over Partials while another waits in Wait.
type ObjectStream[T any] struct {
	ctx     context.Context
	chat    *ChatService
	req     ChatRequest
	spec    ObjectSpec
	opts    []Option
	run     *objectRun
	value   T
	result  *Object[T]
	err     error
	once    runOnce
	attempt atomic.Int64
}

// StreamObject asks the model for a value of type T as GenerateObject does, streaming each model
// turn, so that Partials can show the value as its JSON arrives. Repair turns work as in
// GenerateObject; each starts the partial value over (Attempt tells which attempt a partial
// belongs to). Reasoning deltas, in-band errors and broken streams behave as in ChatStream.
//
// Nothing is sent until Partials is ranged over or Wait is called.
//
// POST /api/v1/chat/completions (with "stream": true), once per attempt
func StreamObject[T any](ctx context.Context, chat *ChatService, req ChatRequest, spec ObjectSpec, opts ...Option) *ObjectStream[T] {
	return &ObjectStream[T]{ctx: ctx, chat: chat, req: req, spec: spec, opts: opts}
}

// Wait returns the value once the stream has ended, or the error that ended it: never nil and
// nil. Called before Partials is ranged over, it runs the stream itself, without making partial
// values no one sees (ranging over Partials afterwards yields nothing). Called while another goroutine ranges over Partials, it waits for
// that run to end: at the stream's end, on ctx's cancellation (seen at the range's next step), or
// when that loop breaks (Wait then returns context.Canceled); so it must not be called from inside
// that loop. Every call returns the same result.
func (s *ObjectStream[T]) Wait() (*Object[T], error) {
	if s.once.claim() {
		s.execute(nil)
	} else {
		s.once.wait()
	}
	return s.result, s.err
}

// Attempt returns the model turn the stream is on, from 1 (0 before it starts). It may be called
// from any goroutine.
func (s *ObjectStream[T]) Attempt() int { return int(s.attempt.Load()) }

var errObjectStopped = errors.New("infergate: the caller stopped the object stream")

// Partials runs the stream and yields the value each time its JSON adds something: fields whose
// value is complete, strings as far as they arrived, slices and maps with their complete elements.
// A partial never holds what the final value contradicts, within an attempt (a failed text
// candidate, JSON the model broke off and started over in prose, restarts it too). Partials share
// slices, maps, pointers and strings with later ones: copy what you keep past an iteration. A
// failure arrives as the last pair, with a zero T. Breaking out of the loop stops the stream; an
// ObjectStream runs once, ranging again (or after Wait, or while another goroutine ranges) yields
// nothing.
func (s *ObjectStream[T]) Partials() iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		if s.once.claim() {
			s.execute(yield)
		}
	}
}

// execute runs the stream, yielding partials, and ends the run with its result set; the failure
// is yielded after that, so that a Wait on another goroutine does not wait for the loop's body.
// A nil yield (Wait's own run) has no partials to see, so none are made.
func (s *ObjectStream[T]) execute(yield func(T, error) bool) {
	ended := false
	defer func() {
		if !ended {
			s.err = errRangePanicked
			s.once.end()
		}
	}()
	err := s.start(yield)
	stopped := err == errObjectStopped
	if stopped {
		err = context.Canceled
	}
	s.err, ended = err, true
	s.once.end()
	if err != nil && !stopped && yield != nil {
		var zero T
		yield(zero, err)
	}
}

func (s *ObjectStream[T]) start(yield func(T, error) bool) error {
	run, err := newObjectRun(s.chat, s.req, s.spec, reflect.TypeFor[T](), valueInto(&s.value), s.opts)
	if err != nil {
		return err
	}
	s.run = run
	s.opts = append(slices.Clip(s.opts), withSticky(new(stickyModel)))
	answer, err := run.loop(s.ctx, func(ctx context.Context, req ChatRequest, mode ObjectMode) (*ChatCompletion, error) {
		return s.turn(ctx, req, mode, yield)
	})
	if err != nil {
		return err
	}
	s.result = &Object[T]{Value: s.value, Raw: answer.raw, Completion: answer.completion, Mode: answer.mode,
		Attempts: run.attempts, Usage: run.usage}
	return nil
}

// turn streams one model turn, yielding the partial value as it grows.
func (s *ObjectStream[T]) turn(ctx context.Context, req ChatRequest, mode ObjectMode, yield func(T, error) bool) (*ChatCompletion, error) {
	s.attempt.Store(int64(s.run.attempts))
	stream, err := s.chat.Stream(ctx, req, s.opts...)
	if err != nil {
		return nil, err
	}
	defer stream.Close()
	stream.mem.setTransient() // no chunk leaves this loop
	var partial T
	var p *partialTracker // nil when no one sees the partials
	if yield != nil {
		p = newPartialTracker(reflect.ValueOf(&partial).Elem(), mode, s.run)
	}
	for stream.Next() {
		if p != nil && p.add(&stream.cur) && !yield(partial, nil) {
			return nil, errObjectStopped
		}
	}
	if err := stream.Err(); err != nil {
		return nil, err
	}
	if p != nil && p.finish() && !yield(partial, nil) {
		return nil, errObjectStopped
	}
	return stream.Completion(), nil
}

// partialTracker follows the part of a streamed turn that carries the value: the arguments of
// the object's call, or the JSON in the text.
type partialTracker struct {
	root     reflect.Value
	name     string
	tools    bool // the turn offers the call
	call     int  // index of the object's call, -1 before it starts
	args     *partialjson.Decoder
	wrapped  bool             // the call carries the value in an envelope
	envelope reflect.Value    // what args fills then
	text     *typed.TextValue // nil in ObjectModeTool, where text is not read
}

func newPartialTracker(root reflect.Value, mode ObjectMode, run *objectRun) *partialTracker {
	p := &partialTracker{root: root, name: run.spec.Name, call: -1,
		tools: mode == ObjectModeAuto || mode == ObjectModeTool, wrapped: run.schema != nil && run.schema.wrapped}
	if mode != ObjectModeTool {
		p.text = typed.NewTextValue(root, schemaOf(run.t).schema)
	}
	return p
}

// finish ends the turn: a value in the text that only its end settles (a number, one found in a
// fence or in prose) is shown. It reports whether the value shows something new.
func (p *partialTracker) finish() bool {
	if p.text == nil || p.call >= 0 {
		return false
	}
	return p.text.Finish()
}

// add reads a chunk's first choice; it reports whether the value shows something new. The chunk
// is the stream's own (not a copy, which would cost more than most fragments do to parse).
func (p *partialTracker) add(chunk *ChatCompletionChunk) bool {
	if p.args != nil && len(chunk.Choices) == 1 && chunk.Choices[0].Index == 0 {
		// The usual chunk once the object's call has started: more of its arguments, which are
		// all that is read then (text no longer is, and other calls never are).
		calls := chunk.Choices[0].Delta.ToolCalls
		if len(calls) == 1 {
			return calls[0].Index == p.call && p.write(calls[0].Function.Arguments)
		}
	}
	changed := false
	for i := range chunk.Choices {
		ch := &chunk.Choices[i]
		if ch.Index != 0 {
			continue
		}
		for j := range ch.Delta.ToolCalls {
			changed = p.addCall(&ch.Delta.ToolCalls[j]) || changed
		}
		if p.text != nil && p.call < 0 && ch.Delta.Content != "" {
			changed = p.text.Write(ch.Delta.Content) || changed
		}
	}
	return changed
}

func (p *partialTracker) addCall(tc *ToolCallDelta) bool {
	if !p.tools {
		return false
	}
	if p.call < 0 && tc.Function.Name == p.name {
		// The value now comes from the call: whatever the text showed is dropped.
		p.call, p.text = tc.Index, nil
		p.root.SetZero()
		target := p.root
		if p.wrapped {
			field := reflect.StructField{Name: "Value", Type: p.root.Type(), Tag: `json:"` + envelopeKey + `"`}
			p.envelope = reflect.New(reflect.StructOf([]reflect.StructField{field})).Elem()
			target = p.envelope
		}
		p.args = partialjson.NewDecoder(target)
	}
	return tc.Index == p.call && p.write(tc.Function.Arguments)
}

// write reads more of the object's call's arguments; it reports whether the value shows
// something new.
func (p *partialTracker) write(args string) bool {
	if args == "" {
		return false
	}
	changed, _ := p.args.WriteString(args) // bad JSON stops the partials; the final check reports it
	if changed && p.envelope.IsValid() {
		p.root.Set(p.envelope.Field(0))
	}
	return changed
}
