package infergate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

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
	cancel  context.CancelCauseFunc
	release func()
	logger  *slog.Logger
	redact  func([]byte) []byte

	wire    wireChunk
	json    *json.Decoder // reused across events: it keeps its scratch space, json.Unmarshal does not
	feed    eventFeed
	fed     int64 // bytes given to json so far, to spot trailing garbage after a value
	cur     ChatCompletionChunk
	acc     accumulator
	skipped []*StreamError
	chunks  int
	done    bool
	err     error
}

// Stream sends the conversation and returns the answer as it is generated. The request is retried
// only before the answer starts; once bytes arrive, a failure is reported by Err.
//
// POST /api/v1/chat/completions (with "stream": true)
func (s *ChatService) Stream(ctx context.Context, req ChatRequest, opts ...CallOption) (*ChatStream, error) {
	body, err := s.encode(&req, true)
	if err != nil {
		return nil, err
	}
	c := s.client
	call := newCallConfig(opts)
	callCtx, cancelCall := call.context(ctx)
	streamCtx, cancel := context.WithCancelCause(callCtx)
	dog := &watchdog{firstByte: c.cfg.firstByteTimeout, idle: c.cfg.idleTimeout, cancel: cancel}
	dog.timer = time.AfterFunc(dog.firstByte, dog.fire)
	release := sync.OnceFunc(func() {
		dog.timer.Stop()
		cancel(nil)
		cancelCall()
	})
	ar := apiRequest{method: http.MethodPost, path: "/chat/completions", body: body, contentType: "application/json", stream: true}
	resp, err := c.send(streamCtx, ar, call)
	if err != nil {
		release()
		if cause := context.Cause(streamCtx); errors.Is(cause, ErrStreamTimeout) {
			return nil, cause
		}
		return nil, err
	}
	watched := &watchedBody{ReadCloser: resp.Body, dog: dog}
	return &ChatStream{
		body: watched, dec: sse.NewDecoder(watched, c.cfg.maxLine),
		ctx: streamCtx, cancel: cancel, release: release, logger: c.cfg.logger, redact: c.cfg.redact,
	}, nil
}

// watchdog cancels a stream that stays silent too long: first the wait for its first byte, then
// each gap between reads. One timer serves both, re-armed on every read.
type watchdog struct {
	timer           *time.Timer
	flowing         atomic.Bool
	firstByte, idle time.Duration
	cancel          context.CancelCauseFunc
}

func (w *watchdog) fire() {
	if w.flowing.Load() {
		w.cancel(fmt.Errorf("%w: no data for %s", ErrStreamTimeout, w.idle))
	} else {
		w.cancel(fmt.Errorf("%w: no answer within %s", ErrStreamTimeout, w.firstByte))
	}
}

// watchedBody re-arms the watchdog whenever data arrives.
type watchedBody struct {
	io.ReadCloser
	dog *watchdog
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.dog.flowing.Store(true)
		b.dog.timer.Reset(b.dog.idle)
	}
	return n, err
}

// Next advances to the next chunk. It returns false at the end of the stream or on an error; Err
// then tells which. Error events and malformed lines inside the stream are skipped (see Skipped).
func (s *ChatStream) Next() bool {
	if s.done {
		return false
	}
	for {
		ev, err := s.dec.Next()
		if err != nil {
			s.finish(err)
			return false
		}
		if ev.Kind == sse.Stray {
			s.skip(ev.Data)
			continue
		}
		data := bytes.TrimSpace(ev.Data)
		switch {
		case len(data) == 0:
			continue // heartbeat
		case string(data) == "[DONE]":
			s.finish(errDone)
			return false
		}
		if s.decode(data) {
			return true
		}
	}
}

var errDone = errors.New("[DONE]")

// decode reads one event's data; it reports false when the event was skipped.
func (s *ChatStream) decode(data []byte) bool {
	s.wire.reset()
	if s.json == nil {
		s.json, s.fed = json.NewDecoder(&s.feed), 0
	}
	s.feed.data = data
	s.fed += int64(len(data))
	err := s.json.Decode(&s.wire)
	if (err != nil && !isTypeError(err)) || s.json.InputOffset() != s.fed {
		s.json = nil // a decoder that failed once stays failed
		s.skip(data)
		return false
	}
	if isPresent(s.wire.Error) {
		s.skip(data)
		return false
	}
	s.cur = s.wire.public()
	s.acc.add(&s.wire, &s.cur)
	s.chunks++
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

// skip records an in-band error or a malformed line; neither ends the stream.
func (s *ChatStream) skip(raw []byte) {
	se := newStreamError(s.redact(raw))
	s.skipped = append(s.skipped, se)
	s.logger.Warn("infergate: skipped an error event in the stream",
		slog.String("type", se.Type), slog.Int("status", se.Status), slog.String("message", se.Message))
}

// finish ends the stream and decides, from how it ended, whether the answer is complete.
func (s *ChatStream) finish(cause error) {
	s.done = true
	switch {
	case cause == errDone && (s.acc.finished || len(s.skipped) == 0):
	case cause == io.EOF && s.acc.finished:
	case (cause == errDone || cause == io.EOF) && len(s.skipped) > 0:
		last := *s.skipped[len(s.skipped)-1]
		last.ended = true
		s.err = &last
	case cause == io.EOF:
		s.err = fmt.Errorf("infergate: stream ended after %d chunks without a finish_reason or [DONE]: %w", s.chunks, ErrIncompleteStream)
	default:
		if ctxCause := context.Cause(s.ctx); ctxCause != nil {
			cause = ctxCause
		}
		s.err = fmt.Errorf("infergate: stream broken after %d chunks: %w (%w)", s.chunks, cause, ErrIncompleteStream)
	}
	s.close(cause)
}

func (s *ChatStream) close(cause error) {
	if cause == errDone {
		// The server ends the body right after [DONE]; reading that end lets the connection be reused.
		// The read is bounded so that a server that keeps the body open cannot hold us.
		stop := time.AfterFunc(100*time.Millisecond, func() { s.cancel(errDone) })
		_, _ = io.CopyN(io.Discard, s.body, 4<<10)
		stop.Stop()
	}
	s.body.Close()
	s.release()
}

// Current returns the chunk that the last call to Next read. Its tool-call fragments carry resolved
// indexes, and repeated ids and names and placeholder "{}" arguments are removed, so concatenating
// the fragments gives the right call; Completion does that for you.
func (s *ChatStream) Current() ChatCompletionChunk { return s.cur }

// Err returns the error that ended the stream, or nil after a complete answer. An answer cut short
// matches ErrIncompleteStream; when the server reported why inside the stream, the error is a
// *StreamError.
func (s *ChatStream) Err() error { return s.err }

// Skipped returns the error events and malformed lines that the stream skipped so far.
func (s *ChatStream) Skipped() []*StreamError { return s.skipped }

// Completion returns everything received so far as one answer, with content joined and tool calls
// reassembled. After a complete stream it is the whole answer.
func (s *ChatStream) Completion() *ChatCompletion { return s.acc.completion() }

// Close stops reading and releases the connection. It is safe to call more than once and after the
// stream ended; the stream's Err is unchanged.
func (s *ChatStream) Close() error {
	if !s.done {
		s.done = true
		s.body.Close()
		s.release()
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
		if s.err != nil {
			yield(ChatCompletionChunk{}, s.err)
		}
	}
}
