package infergate

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"reflect"

	"github.com/infergate/infergate-go/internal/sse"
)

// Stream sends the conversation and returns the answer as it is generated. It returns once the
// first delta (content, reasoning, a refusal or a tool call; a chunk naming only the role is not
// one) or a finish_reason has arrived, or the stream has ended, or what it holds has passed 1 MiB.
//
// Until then nothing has reached the caller, so a stream that fails (an in-band error, an end
// without a finish_reason, a broken connection) is sent again, as the same request with the same
// Idempotency-Key, within the call's WithMaxRetries budget, which the request's HTTP retries share;
// then, with WithFallbackModels, the next model gets it. Once a delta has arrived nothing is sent
// again: a failure is reported by Err, with what arrived. When a failure before the first delta is
// the last one, with no model to fall back to, the stream is returned and its Err reports it (Skipped
// keeps what every attempt reported in-band); with a fallback list, every model failing is a
// *FallbackError from Stream.
//
// What it reads before the first delta it keeps for Next, up to 1 MiB, each chunk counted as its
// event's data and the room its decoded choices take; a chunk that repeats the one before it (no
// delta, the same id, model, usage and roles) is not kept, so Next hands that chunk out once. Past
// 1 MiB, the stream is returned as it is: it is no longer sent again, nor does it fall back.
//
// POST /api/v1/chat/completions (with "stream": true)
func (s *ChatService) Stream(ctx context.Context, req ChatRequest, opts ...Option) (*ChatStream, error) {
	c, err := s.client.configure(opts)
	if err != nil {
		return nil, err
	}
	verbatim, err := req.check()
	if err != nil {
		return nil, err
	}
	var last *ChatStream
	var carried skipLog
	err = c.chatModels(ctx, &req, verbatim, true, func(ctx context.Context, r *route) error {
		st, err := c.streamModel(ctx, r, &carried)
		last = st
		return err
	})
	if last != nil && (err == nil || err == last.err) {
		return last, nil
	}
	return nil, err
}

// streamModel opens the stream of one model and waits for its first delta, sending the request
// again while it fails before that and the retry budget lasts. It returns the stream and, when it
// failed before its first delta, the stream's error.
func (c *config) streamModel(ctx context.Context, r *route, carried *skipLog) (*ChatStream, error) {
	for {
		st, err := c.openStream(ctx, r)
		if err != nil {
			return nil, err
		}
		st.earlier = carried.clone()
		if st.prime() {
			return st, nil
		}
		carried.merge(&st.skipped)
		if c.atMostOnce || !resendable(ctx, st.err) || r.spent > c.maxRetries {
			return st, st.err
		}
		if c.policy().Wait(ctx, r.spent) != nil {
			return st, st.err
		}
	}
}

// resendable reports whether a stream that failed before its first delta is worth sending again to
// the same model (never under WithAtMostOnce: it was delivered, and may have run): not after a timeout (the model is slow, not failing), nor an in-band error that
// says the request is wrong, nor once the caller's context ended.
func resendable(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, ErrStreamTimeout) {
		return false
	}
	var streamErr *StreamError
	if errors.As(err, &streamErr) {
		return !refusedRequest(streamErr.StatusCode)
	}
	return errors.Is(err, ErrIncompleteStream)
}

// openStream sends the route and makes its answer a stream.
func (c *config) openStream(ctx context.Context, r *route) (*ChatStream, error) {
	call, err := c.open(ctx, r)
	if err != nil {
		return nil, err
	}
	st := &ChatStream{body: call.body, ctx: call.ctx, release: call.release, obs: call.obs, cfg: c, model: r.model}
	st.hold = r.limit.last
	st.acc.spare, st.acc.thinkTags = &st.choice, c.thinkTags
	var src io.Reader = call.body
	if isJSON(call.resp.Header) {
		br := bufio.NewReader(call.body)
		head, whole := readWholeObject(br)
		if whole {
			if err := st.takeWhole(c, r, call.resp, head); err != nil {
				st.close(err)
				call.obs.end(nil, err)
				return nil, err
			}
			return st, nil
		}
		src = io.MultiReader(bytes.NewReader(head), br)
	}
	st.dec = sse.NewDecoder(src, c.maxLine)
	st.mem.prepare()
	return st, nil
}

// pendingChunk is a chunk read while waiting for the first delta, with its event's data.
type pendingChunk struct {
	chunk ChatCompletionChunk
	raw   []byte
}

// prime reads up to the first chunk that brings a delta or a finish_reason, keeping what it read
// for Next. It holds at most readAhead of it: past that, the stream is handed out as it is, and no
// longer sent again. A chunk that repeats the one before it is not kept (see repeats). It reports
// false when the stream failed before its first delta; a stream that ended as complete without one
// (an empty answer) is served as it is.
func (s *ChatStream) prime() bool {
	primed := false
	defer func() {
		if !primed { // an observer's hook panicked: no one will read or close this stream
			s.body.Close()
			s.release()
		}
	}()
	read, held := s.first[:0], 0
	for held <= readAhead && s.Next() {
		if delivers(&s.cur) {
			read = append(read, pendingChunk{chunk: s.cur, raw: s.raw})
			break
		}
		if n := len(read); n > 0 && repeats(&s.cur, &read[n-1].chunk) {
			continue
		}
		// The event's data lives in the decoder's buffer until the next read.
		read = append(read, pendingChunk{chunk: s.cur, raw: bytes.Clone(s.raw)})
		held += heldSize(&read[len(read)-1])
	}
	s.pending, s.cur, s.raw = read, ChatCompletionChunk{}, nil
	primed = true
	return s.err == nil
}

// readAhead bounds what Stream holds while it waits for the first delta, as heldSize counts it.
const readAhead = 1 << 20

// heldSize is what a chunk kept for Next costs: its event's data and its decoded form, whose choices
// can take far more room than the text that spelled them ("{}" is a choice).
func heldSize(p *pendingChunk) int {
	return len(p.raw) + pendingSize + len(p.chunk.Choices)*choiceSize
}

var (
	pendingSize = int(reflect.TypeFor[pendingChunk]().Size())
	choiceSize  = int(reflect.TypeFor[ChunkChoice]().Size())
)

// repeats reports whether c, a chunk with no delta, repeats prev: the same metadata and roles, no
// log probabilities. A caller folding the chunks (a ChatAccumulator) gets the same answer without
// it, so a flood of them costs nothing to hold; its event's data is not kept.
func repeats(c, prev *ChatCompletionChunk) bool {
	if c.ID != prev.ID || c.Object != prev.Object || c.Created != prev.Created || c.Model != prev.Model ||
		c.SystemFingerprint != prev.SystemFingerprint || len(c.Choices) != len(prev.Choices) ||
		!sameUsage(c.Usage, prev.Usage) || !sameUsage(c.UsageFromProvider, prev.UsageFromProvider) ||
		!sameUsage(c.UsageFromConsumer, prev.UsageFromConsumer) {
		return false
	}
	for i := range c.Choices {
		a, b := &c.Choices[i], &prev.Choices[i]
		if a.Index != b.Index || a.Delta.Role != b.Delta.Role || a.Logprobs != nil || b.Logprobs != nil {
			return false
		}
	}
	return true
}

func sameUsage(a, b *Usage) bool { return a == b || a != nil && b != nil && reflect.DeepEqual(*a, *b) }

// delivers reports whether a chunk brings the caller part of an answer.
func delivers(c *ChatCompletionChunk) bool {
	for i := range c.Choices {
		ch := &c.Choices[i]
		d := &ch.Delta
		if ch.FinishReason != "" || d.Content != "" || d.Reasoning != "" || d.Refusal != "" ||
			len(d.ToolCalls) > 0 || len(d.Parts) > 0 {
			return true
		}
	}
	return false
}

func (l *skipLog) clone() skipLog {
	out := *l
	out.first, out.last = append([]*StreamError(nil), l.first...), append([]*StreamError(nil), l.last...)
	return out
}

// merge adds what another log kept, counting what it no longer holds.
func (l *skipLog) merge(other *skipLog) {
	kept := other.list()
	for _, e := range kept {
		l.add(e)
	}
	l.total += other.total - len(kept)
}
