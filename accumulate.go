package infergate

import (
	"slices"
	"strings"
)

// accumulator rebuilds the complete answer from a stream's chunks, and cleans each chunk's tool-call
// fragments on the way so that what the caller sees concatenates correctly: providers repeat ids and
// names, send "id":"" on later fragments, leave out the index, and some send a placeholder "{}"
// before the real arguments.
type accumulator struct {
	id, object, model, fingerprint string
	created                        int64
	usage, usageProvider, usageCon *Usage
	choices                        []accChoice
	finished                       bool // some choice received a finish_reason
}

type accChoice struct {
	index   int
	role    Role
	content strings.Builder
	refusal strings.Builder
	finish  FinishReason
	calls   []accCall
	current int // position in calls of the call that index-less fragments extend
}

type accCall struct {
	index         int
	id, typ, name string
	args          strings.Builder
	placeholder   bool // a lone "{}" was held back; it stands unless real arguments follow
}

// add folds one decoded chunk in and completes the caller's copy: resolved tool-call indexes,
// fragments stripped of repeats and placeholders.
func (a *accumulator) add(w *wireChunk, pub *ChatCompletionChunk) {
	setIf(&a.id, pub.ID)
	setIf(&a.object, pub.Object)
	setIf(&a.model, pub.Model)
	setIf(&a.fingerprint, pub.SystemFingerprint)
	if pub.Created != 0 {
		a.created = pub.Created
	}
	a.usage = firstNonNil(pub.Usage, a.usage)
	a.usageProvider = firstNonNil(pub.UsageFromProvider, a.usageProvider)
	a.usageCon = firstNonNil(pub.UsageFromConsumer, a.usageCon)
	for i := range pub.Choices {
		pc := &pub.Choices[i]
		ch := a.choice(pc.Index)
		if pc.Delta.Role != "" {
			ch.role = pc.Delta.Role
		}
		ch.content.WriteString(pc.Delta.Content)
		ch.refusal.WriteString(pc.Delta.Refusal)
		if calls := w.Choices[i].Delta.ToolCalls; len(calls) > 0 {
			pc.Delta.ToolCalls = make([]ToolCallDelta, len(calls))
			for j := range calls {
				pc.Delta.ToolCalls[j] = ch.addCall(&calls[j])
			}
		}
		if pc.FinishReason != "" {
			ch.finish = pc.FinishReason
			a.finished = true
			pc.Delta.ToolCalls = ch.releasePlaceholders(pc.Delta.ToolCalls)
		}
	}
}

func (a *accumulator) choice(index int) *accChoice {
	for i := range a.choices {
		if a.choices[i].index == index {
			return &a.choices[i]
		}
	}
	a.choices = append(a.choices, accChoice{index: index})
	return &a.choices[len(a.choices)-1]
}

// addCall merges one fragment and returns what it really adds.
func (ch *accChoice) addCall(f *wireToolCall) ToolCallDelta {
	id := f.ID.get()
	call := ch.callFor(f.Index, id)
	out := ToolCallDelta{Index: call.index}
	if id != "" && call.id == "" {
		call.id, out.ID = id, id
	}
	if typ := f.Type.get(); typ != "" && call.typ == "" {
		call.typ, out.Type = typ, typ
	}
	if name := f.Function.Name.get(); name != "" && call.name == "" {
		call.name, out.Function.Name = name, name
	}
	args := f.Function.Arguments
	switch {
	case args == "":
	case call.args.Len() == 0 && !call.placeholder && strings.TrimSpace(args) == "{}":
		call.placeholder = true
	case call.placeholder && strings.TrimSpace(args) == "":
		// Whitespace is not real arguments: the held-back "{}" still stands.
	default:
		call.placeholder = false
		call.args.WriteString(args)
		out.Function.Arguments = args
	}
	return out
}

// callFor finds the call a fragment extends. Without an index, a fragment with a new id starts the
// next call and any other fragment extends the current one.
func (ch *accChoice) callFor(index optInt, id string) *accCall {
	if !index.set {
		if len(ch.calls) == 0 {
			index.v = 0
		} else if cur := &ch.calls[ch.current]; id != "" && cur.id != "" && id != cur.id {
			index.v = slices.MaxFunc(ch.calls, func(x, y accCall) int { return x.index - y.index }).index + 1
		} else {
			return cur
		}
	}
	for i := range ch.calls {
		if ch.calls[i].index == index.v {
			ch.current = i
			return &ch.calls[i]
		}
	}
	ch.calls = append(ch.calls, accCall{index: index.v})
	ch.current = len(ch.calls) - 1
	return &ch.calls[ch.current]
}

// releasePlaceholders gives back, on the finishing chunk, the "{}" of calls that never got other
// arguments: for them it was the real (empty) argument object.
func (ch *accChoice) releasePlaceholders(deltas []ToolCallDelta) []ToolCallDelta {
	for i := range ch.calls {
		call := &ch.calls[i]
		if call.placeholder {
			call.placeholder = false
			call.args.WriteString("{}")
			deltas = append(deltas, ToolCallDelta{Index: call.index, Function: FunctionCallDelta{Arguments: "{}"}})
		}
	}
	return deltas
}

// completion returns everything accumulated so far as one answer.
func (a *accumulator) completion() *ChatCompletion {
	out := &ChatCompletion{
		ID: a.id, Object: "chat.completion", Created: a.created, Model: a.model,
		SystemFingerprint: a.fingerprint, Usage: a.usage,
		UsageFromProvider: a.usageProvider, UsageFromConsumer: a.usageCon,
		Choices: make([]Choice, len(a.choices)),
	}
	for i := range a.choices {
		ch := &a.choices[i]
		msg := Message{Role: ch.role, Content: ch.content.String(), Refusal: ch.refusal.String()}
		if msg.Role == "" {
			msg.Role = RoleAssistant
		}
		order := make([]*accCall, len(ch.calls))
		for j := range ch.calls {
			order[j] = &ch.calls[j]
		}
		slices.SortStableFunc(order, func(x, y *accCall) int { return x.index - y.index })
		for _, call := range order {
			args := call.args.String()
			if call.placeholder {
				args = "{}"
			}
			typ := call.typ
			if typ == "" {
				typ = "function"
			}
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: call.id, Type: typ, Function: FunctionCall{Name: call.name, Arguments: args}})
		}
		out.Choices[i] = Choice{Index: ch.index, Message: msg, FinishReason: ch.finish}
	}
	slices.SortFunc(out.Choices, func(x, y Choice) int { return x.Index - y.Index })
	return out
}

func setIf(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

func firstNonNil(u, fallback *Usage) *Usage {
	if u != nil {
		return u
	}
	return fallback
}
