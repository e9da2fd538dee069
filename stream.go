package infergate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/infergate/infergate-go/internal/sse"
)

// ErrLineTooLong ends a stream whose line exceeds the limit set by WithMaxLineSize.
var ErrLineTooLong = sse.ErrLineTooLong

// ChatStream is a streamed answer. Read it with Next and Current (or range over All), then check
// Err; Close releases the connection early. A ChatStream is meant for one goroutine.
//
//	stream, err := client.Chat.Stream(ctx, req)
//	if err != nil { ... }
//	defer stream.Close()
//	for stream.Next() {
//		fmt.Print(stream.Current().Text())
//	}
//	if err := stream.Err(); err != nil { ... }
type ChatStream struct {
	body    io.ReadCloser
	dec     *sse.Decoder
	ctx     context.Context
	release func()
	obs     *observation // nil unless observed
	cfg     *config      // redacts and logs what the server reports
	model   string       // the model the request was sent to

	wire    wireChunk
	mem     streamMemory  // the fast decoder and the blocks chunks are cut from
	json    *json.Decoder // reused across events: it keeps its scratch space, json.Unmarshal does not
	feed    eventFeed
	fed     int64 // bytes given to json so far, to spot trailing garbage after a value
	cur     ChatCompletionChunk
	raw     []byte               // the data of the event cur came from
	single  *ChatCompletionChunk // the whole answer, when the server ignored "stream": true
	whole   []byte               // that answer's body
	acc     ChatAccumulator
	choice  accChoice // the accumulator's first choice, allocated with the stream
	skipped skipLog
	earlier skipLog         // what the call's earlier attempts skipped, before this one was sent
	pending []pendingChunk  // read while waiting for the first delta, not yet handed out
	first   [2]pendingChunk // pending's usual backing: the role's chunk and the first delta's
	chunks  int
	ending  error        // how the stream ended, while its held-back arguments are handed out
	hold    *attemptHold // the attempt's permits, told the usage the stream reports
	done    bool
	err     error
}

// readWholeObject reads the body of a stream request that the server labelled as JSON. When it is
// one JSON object, as from servers that ignore "stream": true, whole is true and head is all of it;
// otherwise head is what was read, to be decoded as events like any stream (a mislabelled event
// stream, or a proxy's HTML page).
func readWholeObject(br *bufio.Reader) (head []byte, whole bool) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return nil, false
		}
		if b != ' ' && b != '\t' && b != '\r' && b != '\n' {
			_ = br.UnreadByte()
			if b != '{' {
				return nil, false
			}
			break
		}
	}
	head, err := io.ReadAll(io.LimitReader(br, maxResponseBody))
	return head, err == nil && json.Valid(head)
}

// takeWhole makes a whole JSON completion the stream's one chunk, and an error body the call's error.
func (s *ChatStream) takeWhole(c *config, r *route, resp *http.Response, body []byte) error {
	var whole ChatCompletion
	if err := decodeJSON(c, r, resp, body, &whole); err != nil {
		return err
	}
	chunk := chunkOf(&whole)
	s.single, s.whole, s.raw = &chunk, body, body
	s.dec = sse.NewDecoder(strings.NewReader("data: [DONE]\n\n"), 0)
	return nil
}

func isJSON(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "application/json"
}

// chunkOf turns a whole completion into the one chunk that carries all of it.
func chunkOf(c *ChatCompletion) ChatCompletionChunk {
	out := ChatCompletionChunk{ID: c.ID, Object: "chat.completion.chunk", Created: c.Created, Model: c.Model,
		SystemFingerprint: c.SystemFingerprint, Usage: c.Usage,
		UsageFromProvider: c.UsageFromProvider, UsageFromConsumer: c.UsageFromConsumer,
		Choices: make([]ChunkChoice, len(c.Choices))}
	for i, ch := range c.Choices {
		m := ch.Message
		d := Delta{Role: m.Role, Content: m.Content, Reasoning: m.Reasoning, Refusal: m.Refusal, Parts: m.Parts, Extra: m.Extra}
		for j, tc := range m.ToolCalls {
			d.ToolCalls = append(d.ToolCalls, ToolCallDelta{Index: j, ID: tc.ID, Type: tc.Type,
				Function: FunctionCallDelta{Name: tc.Function.Name, Arguments: tc.Function.Arguments}, Extra: tc.Extra})
		}
		out.Choices[i] = ChunkChoice{Index: ch.Index, Delta: d, FinishReason: ch.FinishReason, Logprobs: ch.Logprobs}
	}
	return out
}

// Next advances to the next chunk. It returns false at the end of the stream or on an error; Err
// then tells which. Error events and malformed lines inside the stream are skipped (see Skipped).
func (s *ChatStream) Next() bool {
	if s == nil {
		return false
	}
	if len(s.pending) > 0 {
		s.cur, s.raw = s.pending[0].chunk, s.pending[0].raw
		s.pending = s.pending[1:]
		return true
	}
	if s.done {
		return false
	}
	if s.ending != nil {
		s.finish(s.ending)
		return false
	}
	if s.single != nil {
		s.cur, s.single = *s.single, nil
		s.acc.add(&s.cur)
		if s.hold != nil {
			s.noteUsage()
		}
		s.chunks++
		s.obs.chunk(&s.cur)
		return true
	}
	for {
		ev, err := s.dec.Next()
		if err != nil {
			return s.end(err)
		}
		if ev.Kind == sse.Stray {
			s.skipStray(ev)
			continue
		}
		data := ev.Data
		if n := len(data); n == 0 || data[0] <= ' ' || data[0] >= utf8.RuneSelf || data[n-1] <= ' ' || data[n-1] >= utf8.RuneSelf {
			data = bytes.TrimSpace(data) // only the edges TrimSpace may cut are looked at
		}
		switch {
		case len(data) == 0:
			continue // heartbeat
		case string(data) == "[DONE]":
			return s.end(errDone)
		}
		if s.decode(data, ev.Name == "error") {
			s.obs.chunk(&s.cur)
			return true
		}
	}
}

var errDone = errors.New("[DONE]")

// end ends the stream. When it ends as streams do, at [DONE] or at the end of the body, a "{}"
// still held back (no chunk carried a finish_reason to release it) comes first, as a last chunk of
// its own, so that concatenating the deltas stays right on every stream.
func (s *ChatStream) end(cause error) bool {
	if cause == errDone || cause == io.EOF {
		if chunk, ok := s.acc.Flush(); ok {
			s.cur, s.raw, s.ending = chunk, nil, cause
			s.obs.chunk(&s.cur)
			return true
		}
	}
	s.finish(cause)
	return false
}

// decode reads one event's data; it reports false when the event brought no chunk. An error event
// (one with a top-level "error", or an SSE event named "error") is reported as skipped, but choices
// or usage it also carries are kept, as a ChatAccumulator fed the same events keeps them.
func (s *ChatStream) decode(data []byte, errorEvent bool) bool {
	if data[0] != '{' { // a chunk is an object: "provider failed", null or 42 are not answers
		s.skip(data, errorEvent)
		return false
	}
	// The fast decoder takes no error, so an error event goes the full way.
	if errorEvent || !s.mem.decode(data, &s.cur) {
		if !s.decodeJSON(data) {
			s.skip(data, errorEvent)
			return false
		}
		if errorEvent || isErrorValue(s.wire.Error) {
			s.skip(data, errorEvent)
			if !s.wire.carriesAnswer() {
				return false
			}
		}
		s.cur = s.wire.public(&s.mem)
	}
	s.acc.add(&s.cur)
	if s.hold != nil {
		s.noteUsage()
	}
	s.raw = data
	s.chunks++
	return true
}

// decodeJSON decodes what the fast decoder declined with encoding/json; it reports false for a
// malformed event.
func (s *ChatStream) decodeJSON(data []byte) bool {
	s.wire.reset()
	if s.json == nil {
		s.json, s.fed = json.NewDecoder(&s.feed), 0
	}
	s.feed.data = data
	s.fed += int64(len(data))
	err := s.json.Decode(&s.wire)
	if (err != nil && !isTypeError(err)) || s.json.InputOffset() != s.fed {
		s.json = nil // a decoder that failed once stays failed
		return false
	}
	return true
}

// isTypeError tells a value of the wrong JSON type, which leaves the rest of the chunk decoded and
// usable, from a malformed event.
func isTypeError(err error) bool {
	var typeErr *json.UnmarshalTypeError
	return errors.As(err, &typeErr)
}

// eventFeed hands one event's data at a time to the JSON decoder.
type eventFeed struct{ data []byte }

func (f *eventFeed) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

// skip records an in-band error or a malformed line; neither ends the stream. errorEvent tells an
// SSE event named "error", whose data may be a bare error object.
func (s *ChatStream) skip(raw []byte, errorEvent bool) {
	s.record(s.cfg.newStreamError(raw, raw, errorEvent))
}

// skipStray records a line that is not SSE. A line that is a field unknown to SSE whose value
// reports an error (llama.cpp and GPUStack's llama-box end a failed stream with
// `error: {"error":{...}}`, older llama.cpp with `error: {"code":400,"message":...}`) is read as the
// data of an event carrying that error would be, the bare object too after a field named "error";
// Raw keeps the whole line.
func (s *ChatStream) skipStray(ev sse.Event) {
	payload, bare := strayPayload(ev)
	s.record(s.cfg.newStreamError(ev.Data, payload, bare))
}

// strayPayload is what reports the error in a stray line: the field's value when it reports one,
// else the whole line; bare tells a field named "error".
func strayPayload(ev sse.Event) (payload []byte, bare bool) {
	if ev.Name != "" {
		value, named := bytes.TrimSpace(ev.Value), ev.Name == "error"
		if _, ok := errorFields(value, named); ok {
			return value, named
		}
	}
	return ev.Data, false
}

func (s *ChatStream) record(se *StreamError) {
	s.skipped.add(se)
	s.cfg.logger.Warn("infergate: skipped an error event in the stream",
		slog.String("type", se.Type), slog.Int("status", se.StatusCode), slog.String("message", se.Message))
}

// finish ends the stream and decides, from how it ended, whether the answer is complete.
func (s *ChatStream) finish(cause error) {
	s.done = true
	switch {
	case cause == errDone && (s.acc.Finished() || s.skipped.total == 0):
	case cause == io.EOF && s.acc.Finished():
	case (cause == errDone || cause == io.EOF) && s.skipped.total > 0:
		last := *s.skipped.latest
		last.ended = true
		s.err = &last
	case cause == io.EOF:
		s.err = errorf("infergate: stream ended after %s without a finish_reason or [DONE]: %w", plural(s.chunks, "chunk"), ErrIncompleteStream)
	default:
		if ctxCause := context.Cause(s.ctx); ctxCause != nil {
			cause = ctxCause
		}
		s.err = errorf("infergate: stream broken after %s: %w (%w)", plural(s.chunks, "chunk"), cause, ErrIncompleteStream)
	}
	s.recordCost()
	defer s.close(cause) // also when an observer's hook panics: the answer's place goes back
	if s.obs != nil {
		s.obs.end(s.Completion(), s.err)
	}
}

func (s *ChatStream) close(cause error) {
	if cause == errDone {
		// The server ends the body right after [DONE]; reading that end lets the connection be reused.
		// The read is bounded so that a server that keeps the body open cannot hold us.
		stop := time.AfterFunc(100*time.Millisecond, s.release)
		_, _ = io.CopyN(io.Discard, s.body, 4<<10)
		stop.Stop()
	}
	s.body.Close()
	s.release()
}

// Current returns the chunk that the last call to Next read. Its tool-call fragments carry resolved
// indexes, and repeated ids and names and placeholder "{}" arguments are removed, so concatenating
// the fragments gives the right call; Completion does that for you.
func (s *ChatStream) Current() ChatCompletionChunk {
	if s == nil {
		return ChatCompletionChunk{}
	}
	return s.cur
}

// Err returns the error that ended the stream, or nil after a complete answer. An answer cut short
// matches ErrIncompleteStream; when the server reported why inside the stream, the error is a
// *StreamError. On a nil stream it is an error saying so, so that a loop over one that was never
// opened does not look like a complete answer.
func (s *ChatStream) Err() error {
	if s == nil {
		return errNilStream
	}
	return s.err
}

var errNilStream = errors.New("infergate: nil *ChatStream (the call that opened it failed)")

// RawEvent returns the data of the event that Current was decoded from, exactly as received, so
// that fields this SDK does not model stay reachable. It aliases the stream's buffer: it is valid
// until the next call to Next, so copy it to keep it. For a server that answered the stream with a
// plain JSON completion, it is that whole body; it is nil for the last chunk that hands out "{}"
// arguments held back until the stream's end.
func (s *ChatStream) RawEvent() []byte {
	if s == nil {
		return nil
	}
	return s.raw
}

// Skipped returns error events and malformed lines that the stream skipped so far (an error event's
// choices and usage, when it carries some, are kept in Current and Completion): the first and
// the last few of them, in order (SkippedCount tells how many there were in all), so that a flood of
// junk cannot grow memory. Those of the call's earlier attempts, which failed before their first
// delta and were sent again or fell back to another model, come first.
func (s *ChatStream) Skipped() []*StreamError {
	if s == nil {
		return nil
	}
	if s.earlier.total == 0 {
		return s.skipped.list()
	}
	return append(s.earlier.list(), s.skipped.list()...)
}

// SkippedCount returns how many events the stream skipped so far, including those that Skipped no
// longer holds.
func (s *ChatStream) SkippedCount() int {
	if s == nil {
		return 0
	}
	return s.earlier.total + s.skipped.total
}

// Completion returns everything received so far as one answer, with content joined and tool calls
// reassembled. After a complete stream it is the whole answer; nil on a nil stream.
func (s *ChatStream) Completion() *ChatCompletion {
	if s == nil {
		return nil
	}
	c := s.acc.Completion()
	c.raw = s.whole
	return c
}

// Message returns the first choice's assistant message as received so far (content, reasoning, tool
// calls), ready to append to the conversation for the next turn; after a complete stream it is the
// whole answer. It is an empty assistant message (Role RoleAssistant) when no choice arrived, also
// on a nil stream; it never panics.
func (s *ChatStream) Message() Message {
	if s == nil {
		return Message{Role: RoleAssistant}
	}
	return s.Completion().Message()
}

// Close stops reading and releases the connection. It is safe to call more than once and after the
// stream ended, and on a nil stream; the stream's Err is unchanged.
func (s *ChatStream) Close() error {
	if s != nil && !s.done {
		s.done = true
		defer s.release() // also when an observer's hook panics: the answer's place goes back
		defer s.body.Close()
		if s.obs != nil {
			s.obs.end(s.Completion(), context.Canceled)
		}
	}
	return nil
}

// All ranges over the chunks; a failure arrives as the last pair, with a zero chunk. Breaking out of
// the loop closes the stream.
//
//	for chunk, err := range stream.All() {
//		if err != nil { ... }
//		fmt.Print(chunk.Text())
//	}
func (s *ChatStream) All() iter.Seq2[ChatCompletionChunk, error] {
	return func(yield func(ChatCompletionChunk, error) bool) {
		defer s.Close()
		for s.Next() {
			if !yield(s.Current(), nil) {
				return
			}
		}
		if err := s.Err(); err != nil {
			yield(ChatCompletionChunk{}, err)
		}
	}
}

// skipLog keeps the first and the last few skipped events and counts them all.
type skipLog struct {
	first  []*StreamError
	last   []*StreamError // a ring of the most recent ones after first filled up
	next   int            // where the ring writes next
	total  int
	latest *StreamError
}

const skipKeep = 8

func (l *skipLog) add(e *StreamError) {
	l.total++
	l.latest = e
	switch {
	case len(l.first) < skipKeep:
		l.first = append(l.first, e)
	case len(l.last) < skipKeep:
		l.last = append(l.last, e)
	default:
		l.last[l.next] = e
		l.next = (l.next + 1) % skipKeep
	}
}

func (l *skipLog) list() []*StreamError {
	out := make([]*StreamError, 0, len(l.first)+len(l.last))
	out = append(out, l.first...)
	out = append(out, l.last[l.next:]...)
	return append(out, l.last[:l.next]...)
}

// plural writes a count with its noun: "1 chunk", "2 chunks".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// noteUsage tells the attempt's permits the usage the current chunk reports, copied: the chunk's
// memory is reused.
func (s *ChatStream) noteUsage() {
	u := s.cur.Usage
	if u == nil {
		u = s.cur.UsageFromProvider
	}
	if u != nil {
		copied := *u
		s.hold.noteUsage(&copied)
	}
}
