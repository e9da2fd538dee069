package infergate_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

// This file generates random valid streams whose answer is known by construction: the truth is
// drawn first, then cut into the fragments and quirks real servers send. The property test and the
// fuzz target both use it.

// dice makes the generator's choices: from a seeded PRNG for the property test, from the fuzzer's
// bytes for the fuzz target.
type dice interface{ intn(n int) int }

type randDice struct{ r *rand.Rand }

func (d randDice) intn(n int) int { return d.r.IntN(max(n, 1)) }

// byteDice reads choices from fuzz input; once it runs out every choice is 0, the plainest stream.
type byteDice struct{ b []byte }

func (d *byteDice) intn(n int) int {
	if n <= 1 || len(d.b) == 0 {
		return 0
	}
	v := int(d.b[0])
	d.b = d.b[1:]
	return v % n
}

func chance(d dice, percent int) bool { return d.intn(100) < percent }

// truthCall and truthChoice are what the stream must add up to.
type truthCall struct{ id, name, args string }

type truthChoice struct {
	content, reasoning string
	finish             string
	calls              []truthCall
	tokens             []string // logprob tokens in order, when the choice sends logprobs
}

type genStream struct {
	body    string
	choices []truthChoice
	usage   bool // a usage chunk with token details was sent
}

// Text with everything JSON and UTF-8 make hard: quotes, backslashes, control characters, HTML
// characters that encoders escape, multi-byte runes, and separators JavaScript treats as newlines.
var atoms = []string{"a", "Paris", " ", "\"", "\\", "\n", "\t", "é", "日本", "🙂", "<b>", "&", "\u2028", "{}", "[", "0", "\\u00e9"}

func genText(d dice, maxAtoms int) string {
	var b strings.Builder
	for range d.intn(maxAtoms + 1) {
		b.WriteString(atoms[d.intn(len(atoms))])
	}
	return b.String()
}

// splitText cuts s into 1 to 5 pieces at random rune boundaries.
func splitText(d dice, s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for n := d.intn(5); n > 0 && len(s) > 1; n-- {
		i := 1 + d.intn(len(s)-1)
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		if i == 0 {
			break
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return append(out, s)
}

// genArgs draws a tool call's arguments: "{}" or an object whose text is full of escapes.
func genArgs(d dice) string {
	if chance(d, 20) {
		return "{}"
	}
	obj := map[string]any{}
	for i := range 1 + d.intn(3) {
		switch d.intn(4) {
		case 0:
			obj[fmt.Sprintf("k%d", i)] = genText(d, 6)
		case 1:
			obj[fmt.Sprintf("n%d", i)] = d.intn(1000) - 500
		case 2:
			obj[fmt.Sprintf("l%d", i)] = []any{genText(d, 2), true, nil}
		default:
			obj[fmt.Sprintf("o%d", i)] = map[string]any{"deep": genText(d, 3)}
		}
	}
	b, _ := json.Marshal(obj)
	return string(b)
}

type obj = map[string]any

// genChoice draws one choice's truth and the deltas that carry it, in order. Each delta is the
// JSON object of one choice entry ({"index":..,"delta":..,...}). With noFinish, no delta carries a
// finish_reason, as from servers that go straight from the answer to usage and [DONE].
func genChoice(d dice, index int, noFinish bool) (truthChoice, []obj) {
	var t truthChoice
	var out []obj
	entry := func(delta obj) obj { return obj{"index": index, "delta": delta} }
	if chance(d, 70) {
		role := obj{"role": "assistant"}
		if chance(d, 30) {
			role["content"] = ""
		}
		out = append(out, entry(role))
		if chance(d, 20) { // sent again, as from servers that send several before the first delta
			for range 1 + d.intn(3) {
				out = append(out, entry(role))
			}
		}
	}
	if chance(d, 40) {
		t.reasoning = genText(d, 8)
		spelling := d.intn(4)
		for _, p := range splitText(d, t.reasoning) {
			switch spelling {
			case 0:
				out = append(out, entry(obj{"reasoning_content": p}))
			case 1:
				out = append(out, entry(obj{"reasoning": p}))
			case 2:
				out = append(out, entry(obj{"content": []any{obj{"type": "thinking", "thinking": []any{obj{"type": "text", "text": p}}}}}))
			default:
				out = append(out, entry(obj{"content": []any{obj{"type": "thinking", "thinking": p}}}))
			}
		}
	}
	t.content = genText(d, 12)
	logprobs := chance(d, 30)
	for _, p := range splitText(d, t.content) {
		delta := obj{"content": p}
		if chance(d, 30) {
			delta["content"] = []any{obj{"type": "text", "text": p}}
		}
		e := entry(delta)
		if logprobs {
			t.tokens = append(t.tokens, p)
			e["logprobs"] = obj{"content": []any{obj{"token": p, "logprob": -0.25, "bytes": utf8Bytes(p), "top_logprobs": []any{}}}}
		}
		out = append(out, e)
	}
	calls, frags := genCalls(d)
	t.calls = calls
	for _, f := range frags {
		out = append(out, entry(obj{"tool_calls": f}))
	}
	if noFinish {
		if len(out) == 0 {
			out = append(out, entry(obj{}))
		}
		return t, out
	}
	t.finish = "stop"
	if len(calls) > 0 {
		t.finish = "tool_calls"
	} else if chance(d, 10) {
		t.finish = "length"
	}
	if len(out) > 0 && chance(d, 50) {
		out[len(out)-1]["finish_reason"] = t.finish
	} else {
		out = append(out, obj{"index": index, "delta": obj{}, "finish_reason": t.finish})
	}
	return t, out
}

// genCalls draws 0 to 4 parallel calls and their fragments: whole or cut at random byte positions
// (inside escapes too), sequential or interleaved, with or without indexes or all at index 0, with
// the placeholder "{}", blank ids and types, and repeated names on later fragments. Each returned fragment list is one delta's "tool_calls".
func genCalls(d dice) ([]truthCall, [][]obj) {
	n := d.intn(5)
	if n == 0 {
		return nil, nil
	}
	interleave := chance(d, 50)
	// Without indexes, or with all calls at index 0 (Ollama, Gemini adapters), only a new id tells
	// calls apart.
	noIndex := !interleave && chance(d, 30)
	sameIndex := !interleave && !noIndex && chance(d, 30)
	calls := make([]truthCall, n)
	perCall := make([][]obj, n)
	for i := range calls {
		c := truthCall{id: fmt.Sprintf("call_%d_%d", i, d.intn(1000)), name: fmt.Sprintf("fn_%d", d.intn(3)), args: genArgs(d)}
		calls[i] = c
		frag := func(m obj) obj {
			switch {
			case sameIndex:
				m["index"] = 0
			case !noIndex:
				m["index"] = i
			}
			return m
		}
		if chance(d, 25) {
			perCall[i] = append(perCall[i], frag(obj{"id": c.id, "type": "function", "function": obj{"name": c.name, "arguments": c.args}}))
			continue
		}
		first := obj{"name": c.name}
		if chance(d, 50) {
			first["arguments"] = ""
		}
		perCall[i] = append(perCall[i], frag(obj{"id": c.id, "type": "function", "function": first}))
		pieces := cutBytes(d, c.args)
		if c.args != "{}" && chance(d, 25) {
			pieces = append([]string{"{}"}, pieces...)
		}
		blank, repeatName := chance(d, 30), chance(d, 20)
		for _, p := range pieces {
			fn := obj{"arguments": p}
			if repeatName {
				fn["name"] = c.name
			}
			m := obj{"function": fn}
			if blank {
				m["id"], m["type"] = "", ""
			}
			perCall[i] = append(perCall[i], frag(m))
		}
	}
	var frags [][]obj
	if !interleave {
		for _, fs := range perCall {
			for _, f := range fs {
				frags = append(frags, []obj{f})
			}
		}
		return calls, frags
	}
	for {
		var open []int
		for i, fs := range perCall {
			if len(fs) > 0 {
				open = append(open, i)
			}
		}
		if len(open) == 0 {
			return calls, frags
		}
		i := open[d.intn(len(open))]
		delta := []obj{perCall[i][0]}
		perCall[i] = perCall[i][1:]
		if j := open[d.intn(len(open))]; j != i && len(perCall[j]) > 0 && chance(d, 25) {
			delta = append(delta, perCall[j][0]) // two calls' fragments in one delta
			perCall[j] = perCall[j][1:]
		}
		frags = append(frags, delta)
	}
}

// cutBytes cuts s at random byte positions, never inside a UTF-8 sequence (a server's JSON encoder
// would turn half a rune into U+FFFD), but anywhere inside the arguments' own escapes.
func cutBytes(d dice, s string) []string {
	var out []string
	for len(s) > 0 {
		n := 1 + d.intn(min(len(s), 12))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// genStreamBody draws 1 to 4 choices, interleaves their deltas at random (sometimes two choices in
// one chunk), and frames the chunks as events with the quirks of real servers, sometimes with no
// finish_reason at all before [DONE].
func genStreamBody(d dice) genStream {
	var g genStream
	n := 1 + d.intn(4)
	done := chance(d, 70)
	noFinish := done && chance(d, 15) // without [DONE], the end of a stream without finish_reason is a truncation
	queues := make([][]obj, n)
	for i := range n {
		t, q := genChoice(d, i, noFinish)
		g.choices = append(g.choices, t)
		queues[i] = q
	}
	var chunks []obj
	for {
		var open []int
		for i, q := range queues {
			if len(q) > 0 {
				open = append(open, i)
			}
		}
		if len(open) == 0 {
			break
		}
		i := open[d.intn(len(open))]
		entries := []any{queues[i][0]}
		queues[i] = queues[i][1:]
		if j := open[d.intn(len(open))]; j != i && len(queues[j]) > 0 && chance(d, 20) {
			entries = append(entries, queues[j][0])
			queues[j] = queues[j][1:]
		}
		chunks = append(chunks, obj{"id": "chatcmpl-gen", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": entries})
	}
	if chance(d, 60) {
		g.usage = true
		chunks = append(chunks, obj{"id": "chatcmpl-gen", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": []any{},
			"usage": obj{"prompt_tokens": 7, "completion_tokens": 9, "total_tokens": 16,
				"prompt_tokens_details": obj{"cached_tokens": 3}, "completion_tokens_details": obj{"reasoning_tokens": 4}}})
	}
	sep, prefix := "\n", "data: "
	if chance(d, 30) {
		sep = "\r\n"
	}
	if chance(d, 20) {
		prefix = "data:"
	}
	var b strings.Builder
	for _, c := range chunks {
		if chance(d, 10) {
			b.WriteString(": keepalive" + sep + sep)
		}
		raw, _ := json.Marshal(c)
		b.WriteString(prefix + string(raw) + sep + sep)
	}
	if done {
		b.WriteString(prefix + "[DONE]" + sep + sep)
	}
	g.body = b.String()
	return g
}

func utf8Bytes(s string) []int {
	out := make([]int, len(s))
	for i := range len(s) {
		out[i] = int(s[i])
	}
	return out
}
