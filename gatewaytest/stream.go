package gatewaytest

import (
	"encoding/json"
	"net/http"
	"strings"
	"unicode/utf8"
)

// The junk lines real streams carry, sent verbatim by Quirks.JunkLines.
const (
	junkDataLine = "data: provider failed, failover enabled"
	junkRawError = `{"error":"provider request failed: provider closed connection without sending any data"}`
)

// stream answers with server-sent events. The whole stream is laid out as
// bytes first, so chunking can cut it anywhere, like TCP does. It reports
// whether every write went out.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, c completion) (sent bool) {
	q := c.Quirks
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()

	var writes [][]byte
	size := s.cfg.chunkSize
	if q.ChunkSize > 0 {
		size = q.ChunkSize
	}
	events := streamLines(c)
	if size > 0 {
		var all []byte
		for _, e := range events {
			all = append(all, e...)
		}
		for len(all) > 0 {
			n := min(size, len(all))
			writes = append(writes, all[:n])
			all = all[n:]
		}
	} else {
		writes = events
	}
	for i, b := range writes {
		if i > 0 && !s.sleep(r, q.Delay) {
			return false
		}
		if _, err := w.Write(b); err != nil {
			return false
		}
		if rc.Flush() != nil {
			return false
		}
	}
	return true
}

// streamLines renders the stream as framed events, quirks applied.
func streamLines(c completion) [][]byte {
	q := c.Quirks
	data := streamChunks(c)
	end := "data: [DONE]"
	if q.NoDone {
		end = ""
	}
	if q.TruncateAfter > 0 && q.TruncateAfter < len(data) {
		data, end = data[:q.TruncateAfter], ""
	}
	if e := q.InBandError; e != nil {
		at := min(max(e.After, 0), len(data))
		data = append(data[:at:at], "data: "+mustJSON(e.body()))
		end = ""
	}
	if q.JunkLines && len(data) > 0 {
		data = append(data[:1:1], append([]string{junkDataLine, junkRawError}, data[1:]...)...)
	}
	if end != "" {
		data = append(data, end)
	}
	sep := "\n"
	if q.CRLF {
		sep = "\r\n"
	}
	out := make([][]byte, 0, len(data)*2)
	for _, line := range data {
		if q.Keepalive {
			out = append(out, []byte(": keepalive"+sep+sep))
		}
		out = append(out, []byte(line+sep+sep))
	}
	return out
}

func (e *StreamErrorEvent) body() map[string]any {
	msg, typ := e.Message, e.Type
	if msg == "" {
		msg = "provider request failed"
	}
	if typ == "" {
		typ = "provider_error"
	}
	var status any
	if e.Status != 0 {
		status = e.Status
	}
	return map[string]any{"error": map[string]any{"message": msg, "type": typ, "status": status}}
}

// streamChunks renders the data events of a complete stream: role, reasoning, content, tool calls,
// finish and usage, the choices of a request with n > 1 interleaved.
func streamChunks(c completion) []string {
	q := c.Quirks
	queues := [][]map[string]any{choiceEntries(c.Reply, 0, q)}
	for i, r := range c.MoreChoices {
		queues = append(queues, choiceEntries(r, i+1, q))
	}
	chunk := func(entries ...any) map[string]any {
		if entries == nil {
			entries = []any{} // the usage chunk's "choices":[]
		}
		return map[string]any{
			"id": c.id, "object": "chat.completion.chunk", "created": c.created, "model": c.Model,
			"choices": entries, "system_fingerprint": "",
		}
	}
	var chunks []map[string]any
	for _, e := range roundRobin(queues) {
		chunks = append(chunks, chunk(e))
	}
	last := chunks[len(chunks)-1]
	last["usage_from_provider"] = c.Usage
	last["usage_from_consumer"] = c.Usage
	if !q.NoUsageChunk {
		u := chunk()
		u["usage"] = c.Usage
		u["usage_from_provider"] = c.Usage
		u["usage_from_consumer"] = c.Usage
		chunks = append(chunks, u)
	}
	out := make([]string, len(chunks))
	for i, ch := range chunks {
		out[i] = "data: " + mustJSON(ch)
	}
	return out
}

// choiceEntries renders one choice's part of each chunk, in order.
func choiceEntries(r Reply, index int, q Quirks) []map[string]any {
	entry := func(delta map[string]any) map[string]any {
		return map[string]any{"index": index, "delta": delta, "finish_reason": nil}
	}
	out := []map[string]any{entry(map[string]any{"role": "assistant"})}
	for _, p := range splitAfterSpaces(r.Reasoning) {
		if q.ReasoningAs == "thinking" {
			out = append(out, entry(map[string]any{"content": []any{thinkingPart(p)}}))
		} else {
			out = append(out, entry(map[string]any{reasoningKey(q): p}))
		}
	}
	pieces := r.Chunks
	if len(pieces) == 0 {
		pieces = splitAfterSpaces(r.Content)
	}
	for _, p := range pieces {
		var content any = p
		if q.ContentParts {
			content = []any{map[string]any{"type": "text", "text": p}}
		}
		out = append(out, entry(map[string]any{"content": content}))
	}
	for _, frag := range toolCallFragments(r.ToolCalls, q) {
		out = append(out, entry(map[string]any{"tool_calls": []any{frag}}))
	}
	if q.FinishOnLastDelta && len(out) > 1 {
		out[len(out)-1]["finish_reason"] = r.FinishReason
	} else {
		fin := entry(map[string]any{})
		fin["finish_reason"] = r.FinishReason
		out = append(out, fin)
	}
	return out
}

// toolCallFragments renders the fragments of a reply's tool calls, call after call or interleaved.
func toolCallFragments(calls []ToolCall, q Quirks) []map[string]any {
	perCall := make([][]map[string]any, len(calls))
	for i, tc := range calls {
		frag := func(m map[string]any) map[string]any {
			m["index"] = i
			return m
		}
		if q.WholeToolCalls {
			perCall[i] = append(perCall[i], frag(map[string]any{"id": tc.ID, "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}}))
			continue
		}
		fn := map[string]any{"name": tc.Name}
		if !q.BlankIDs {
			fn["arguments"] = ""
		}
		perCall[i] = append(perCall[i], frag(map[string]any{"id": tc.ID, "type": "function", "function": fn}))
		frags := splitBytes(tc.Arguments, q.ArgChunkSize)
		if q.EmptyArgsFirst {
			frags = append([]string{"{}"}, frags...)
		}
		for _, f := range frags {
			m := map[string]any{"function": map[string]any{"arguments": f}}
			if q.BlankIDs {
				m["id"], m["type"] = "", ""
			}
			perCall[i] = append(perCall[i], frag(m))
		}
	}
	if q.InterleaveToolCalls {
		return roundRobin(perCall)
	}
	var out []map[string]any
	for _, fs := range perCall {
		out = append(out, fs...)
	}
	return out
}

// roundRobin takes one item of each queue in turn until all are empty.
func roundRobin[T any](queues [][]T) []T {
	var out []T
	for more := true; more; {
		more = false
		for i := range queues {
			if len(queues[i]) > 0 {
				out = append(out, queues[i][0])
				queues[i] = queues[i][1:]
				more = true
			}
		}
	}
	return out
}

// splitAfterSpaces cuts text into word-sized pieces that concatenate back to it.
func splitAfterSpaces(text string) []string {
	var out []string // nil for empty text: no piece at all
	for text != "" {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			return append(out, text)
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// splitBytes cuts s into pieces of about n bytes, never inside a UTF-8
// sequence, because JSON encoding would turn half a rune into U+FFFD.
func splitBytes(s string, n int) []string {
	if n <= 0 || len(s) <= n {
		return []string{s}
	}
	var out []string
	for len(s) > n {
		i := n
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		if i == 0 {
			_, i = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return append(out, s)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("gatewaytest: encoding stream chunk: " + err.Error())
	}
	return string(b)
}
