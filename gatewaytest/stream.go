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
// bytes first, so chunking can cut it anywhere, like TCP does.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, c completion) {
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
			return
		}
		if _, err := w.Write(b); err != nil {
			return
		}
		if rc.Flush() != nil {
			return
		}
	}
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

func (e *StreamError) body() map[string]any {
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

// streamChunks renders the data events of a complete stream: role, content,
// tool calls, finish and usage.
func streamChunks(c completion) []string {
	q := c.Quirks
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{
			"id": c.id, "object": "chat.completion.chunk", "created": c.created, "model": c.Model,
			"choices":            []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
			"system_fingerprint": "",
		}
	}
	chunks := []map[string]any{chunk(map[string]any{"role": "assistant"}, nil)}
	pieces := c.Chunks
	if len(pieces) == 0 && c.Content != "" {
		pieces = splitAfterSpaces(c.Content)
	}
	for _, p := range pieces {
		chunks = append(chunks, chunk(map[string]any{"content": p}, nil))
	}
	for i, tc := range c.ToolCalls {
		call := func(m map[string]any) map[string]any {
			m["index"] = i
			return chunk(map[string]any{"tool_calls": []any{m}}, nil)
		}
		if q.WholeToolCalls {
			chunks = append(chunks, call(map[string]any{"id": tc.ID, "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}}))
			continue
		}
		fn := map[string]any{"name": tc.Name}
		if !q.BlankIDs {
			fn["arguments"] = ""
		}
		chunks = append(chunks, call(map[string]any{"id": tc.ID, "type": "function", "function": fn}))
		frags := splitBytes(tc.Arguments, q.ArgChunkSize)
		if q.EmptyArgsFirst {
			frags = append([]string{"{}"}, frags...)
		}
		for _, f := range frags {
			m := map[string]any{"function": map[string]any{"arguments": f}}
			if q.BlankIDs {
				m["id"], m["type"] = "", ""
			}
			chunks = append(chunks, call(m))
		}
	}
	withUsage := func(m map[string]any) {
		m["usage_from_provider"] = c.Usage
		m["usage_from_consumer"] = c.Usage
	}
	if q.FinishOnLastDelta && len(chunks) > 1 {
		last := chunks[len(chunks)-1]
		last["choices"].([]any)[0].(map[string]any)["finish_reason"] = c.FinishReason
		withUsage(last)
	} else {
		fin := chunk(map[string]any{}, c.FinishReason)
		withUsage(fin)
		chunks = append(chunks, fin)
	}
	if !q.NoUsageChunk {
		u := chunk(nil, nil)
		u["choices"] = []any{}
		u["usage"] = c.Usage
		withUsage(u)
		chunks = append(chunks, u)
	}
	out := make([]string, len(chunks))
	for i, ch := range chunks {
		out[i] = "data: " + mustJSON(ch)
	}
	return out
}

// splitAfterSpaces cuts text into word-sized pieces that concatenate back to it.
func splitAfterSpaces(text string) []string {
	var out []string
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
