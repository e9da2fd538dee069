package infergate

import (
	"maps"
	"slices"
	"strings"

	"github.com/infergate/infergate-go/internal/chunkmem"
	"github.com/infergate/infergate-go/internal/think"
)

// ChatAccumulator folds the chunks of a streamed answer into the complete answer. ChatStream uses
// one; use your own to fold chunks you recorded, proxied or decoded with json.Unmarshal. The zero
// value is ready to use; an accumulator is meant for one goroutine.
//
// Add also cleans each chunk's tool-call fragments, so that concatenating them gives the right call:
// providers repeat ids and names, send "id":"" on later fragments, leave out the index, interleave
// the fragments of parallel calls or send them all at index 0 (a new id then starts a new call),
// and some send a placeholder "{}" before the real arguments.
type ChatAccumulator struct {
	id, object, model, fingerprint string
	created                        int64
	usage, usageProvider, usageCon *Usage
	choices                        map[int]*accChoice
	last                           *accChoice // the choice of the previous delta, found without a map lookup
	spare                          *accChoice // memory for the first choice, when the owner has some
	finished                       bool
	thinkTags                      bool // reasoning written inline is moved out of the text (WithThinkTags)
}

type accChoice struct {
	index     int
	role      Role
	content   joined
	reasoning joined
	refusal   joined
	parts     []ContentPart // built only once a delta brings parts the SDK does not fold
	fields    fieldFold     // the fragments of the message's Extra
	logprobs  *Logprobs
	finish    FinishReason
	calls     map[int]*accCall // by resolved index
	moved     map[int]*accCall // the call a wire index stands for, once a new id reused that index
	current   *accCall         // the call that fragments without an index extend
	nextIndex int              // the index a call gets when its own is absent or already taken
	think     think.Splitter   // the reading of reasoning written inline, when thinkTags is set
}

type accCall struct {
	index         int
	id, typ, name string
	args          joined
	fields        fieldFold // the fragments of the call's Extra
	placeholder   bool      // a lone "{}" was held back; it stands unless real arguments follow
}

// Add folds one chunk in and returns it cleaned: every tool-call fragment has its resolved index,
// and repeated ids, types and names and placeholder "{}" arguments are removed (a placeholder that
// turns out to be the real, empty, arguments is given back on the choice's finishing chunk, or by
// Flush when no chunk finishes the choice). The chunk passed in is not modified.
//
// To forward what Add returns (a proxy, say), call Flush once the stream has ended and forward the
// chunk it gives: the deltas forwarded then concatenate to Completion's answer on every stream,
// also one that ends without a finish_reason.
func (a *ChatAccumulator) Add(chunk ChatCompletionChunk) ChatCompletionChunk {
	chunk.Choices = slices.Clone(chunk.Choices)
	for i := range chunk.Choices {
		d := &chunk.Choices[i].Delta
		d.ToolCalls = slices.Clone(d.ToolCalls)
	}
	a.add(&chunk)
	return chunk
}

// add folds a chunk that the caller owns, cleaning its tool calls in place.
func (a *ChatAccumulator) add(chunk *ChatCompletionChunk) {
	setIf(&a.id, chunk.ID)
	setIf(&a.object, chunk.Object)
	setIf(&a.model, chunk.Model)
	setIf(&a.fingerprint, chunk.SystemFingerprint)
	if chunk.Created != 0 {
		a.created = chunk.Created
	}
	setIfAny(&a.usage, chunk.Usage)
	setIfAny(&a.usageProvider, chunk.UsageFromProvider)
	setIfAny(&a.usageCon, chunk.UsageFromConsumer)
	for i := range chunk.Choices {
		pc := &chunk.Choices[i]
		a.choice(pc.Index).add(pc, a.thinkTags)
		if pc.FinishReason != "" {
			a.finished = true
		}
	}
}

// Finished reports whether some choice has received its finish_reason: the model completed an
// answer, even if the stream then breaks off before [DONE].
func (a *ChatAccumulator) Finished() bool { return a.finished }

func (a *ChatAccumulator) choice(index int) *accChoice {
	if a.last != nil && a.last.index == index {
		return a.last
	}
	if a.last == nil { // the first choice needs no map: most answers have only it
		a.last, a.spare = a.spare, nil
		if a.last == nil {
			a.last = new(accChoice)
		}
		a.last.index = index
		return a.last
	}
	if a.choices == nil {
		a.choices = map[int]*accChoice{a.last.index: a.last}
	}
	ch := a.choices[index]
	if ch == nil {
		ch = &accChoice{index: index}
		a.choices[index] = ch
	}
	a.last = ch
	return ch
}

// add folds one choice's delta in and rewrites its tool calls, in place, into their cleaned form,
// and with thinkTags its text into its reasoning and content.
func (ch *accChoice) add(pc *ChunkChoice, thinkTags bool) {
	d := &pc.Delta
	if thinkTags && d.Parts == nil {
		ch.splitThink(d, pc.FinishReason != "")
	}
	if d.Role != "" {
		ch.role = d.Role
	}
	if d.Content != "" || d.Parts != nil {
		ch.addContent(d)
	}
	if d.Reasoning != "" {
		ch.reasoning.WriteString(d.Reasoning)
	}
	if d.Refusal != "" {
		ch.refusal.WriteString(d.Refusal)
	}
	if len(d.Extra) > 0 {
		ch.fields = ch.fields.add(d.Extra)
	}
	if pc.Logprobs != nil {
		ch.logprobs = appendLogprobs(ch.logprobs, pc.Logprobs)
	}
	for j := range d.ToolCalls {
		ch.addCall(&d.ToolCalls[j])
	}
	if pc.FinishReason != "" {
		ch.finish = pc.FinishReason
		d.ToolCalls = ch.releasePlaceholders(d.ToolCalls)
	}
}

// splitThink moves the reasoning written inline in the delta's text to its Reasoning; on the
// choice's finishing chunk, the text still held comes too.
func (ch *accChoice) splitThink(d *Delta, finishing bool) {
	reasoning, content := ch.think.Write(d.Content)
	if finishing {
		r, c := ch.think.Flush()
		reasoning, content = reasoning+r, content+c
	}
	d.Content = content
	d.Reasoning += reasoning
}

// addContent joins text, and keeps the parts list in order once a delta brings parts that are not
// plain text, so that images and unknown parts survive between the text around them.
func (ch *accChoice) addContent(d *Delta) {
	if d.Parts != nil && ch.parts == nil && ch.content.Len() > 0 {
		ch.parts = []ContentPart{TextPart(ch.content.String())}
	}
	ch.content.WriteString(d.Content)
	switch {
	case d.Parts != nil:
		ch.parts = append(ch.parts, d.Parts...)
	case ch.parts != nil && d.Content != "":
		ch.parts = append(ch.parts, TextPart(d.Content))
	}
}

// addCall merges one fragment and rewrites it, in place, into what it really adds.
func (ch *accChoice) addCall(f *ToolCallDelta) {
	index, call := ch.callFor(f.Index, f.ID)
	f.Index = index
	if len(f.Extra) > 0 {
		call.fields = call.fields.add(f.Extra)
	}
	// Most fragments bring arguments alone: the fields they leave empty are not stored again.
	if f.ID != "" {
		if call.id == "" {
			call.id = f.ID
		} else {
			f.ID = ""
		}
	}
	if f.Type != "" {
		if call.typ == "" {
			call.typ = f.Type
		} else {
			f.Type = ""
		}
	}
	if f.Function.Name != "" {
		if call.name == "" {
			call.name = f.Function.Name
		} else {
			f.Function.Name = ""
		}
	}
	args := f.Function.Arguments
	switch {
	case args == "":
		return
	case call.args.Len() == 0 && !call.placeholder && strings.TrimSpace(args) == "{}":
		call.placeholder = true
	case call.placeholder && strings.TrimSpace(args) == "":
		// Whitespace is not real arguments: the held-back "{}" still stands.
	default:
		call.placeholder = false
		call.args.WriteString(args)
		return
	}
	f.Function.Arguments = ""
}

// callFor finds the call a fragment extends, creating it when new. A fragment extends the call of
// its index, or without an index (a negative one) the current call, unless it brings an id other
// than that call's: then it starts a new call, at the next free index. Several servers stream
// parallel calls all at index 0, told apart only by their ids.
func (ch *accChoice) callFor(index int, id string) (int, *accCall) {
	call := ch.current
	switch {
	case index < 0:
	case call != nil && call.index == index && ch.moved == nil:
		// The current call's index, which no new id has taken over: the call itself, without a
		// lookup.
	default:
		call = ch.calls[index]
		if m := ch.moved[index]; m != nil {
			call = m
		}
	}
	if call != nil && (id == "" || call.id == "" || id == call.id) {
		if ch.current != call { // the usual fragment's call is already current: no store, no write barrier
			ch.current = call
		}
		return call.index, call
	}
	resolved := index
	if resolved < 0 || call != nil {
		resolved = ch.nextIndex
	}
	if ch.calls == nil {
		ch.calls = map[int]*accCall{}
	}
	call = &accCall{index: resolved}
	ch.calls[resolved] = call
	ch.nextIndex = max(ch.nextIndex, resolved+1)
	if index >= 0 && resolved != index {
		if ch.moved == nil {
			ch.moved = map[int]*accCall{}
		}
		ch.moved[index] = call
	}
	ch.current = call
	return resolved, call
}

// releasePlaceholders gives back, on the finishing chunk, the "{}" of calls that never got other
// arguments: for them it was the real (empty) argument object.
func (ch *accChoice) releasePlaceholders(deltas []ToolCallDelta) []ToolCallDelta {
	for _, index := range slices.Sorted(maps.Keys(ch.calls)) {
		call := ch.calls[index]
		if call.placeholder {
			call.placeholder = false
			call.args.WriteString("{}")
			deltas = append(deltas, ToolCallDelta{Index: index, Function: FunctionCallDelta{Arguments: "{}"}})
		}
	}
	return deltas
}

// Flush ends the fold: it gives back, as a chunk of its own, the placeholder "{}" arguments still
// held back because no chunk finished their choice (Ollama's OpenAI layer with an empty done
// reason, a stream broken off), now known to be the real, empty, arguments, and in a stream of a
// call given WithThinkTags the text held back until its place was known; ok is false when
// nothing is held back, the usual case. The chunk carries the stream's id and model. Chunks added
// after Flush are folded as before, the released "{}" counting as arguments already sent.
func (a *ChatAccumulator) Flush() (chunk ChatCompletionChunk, ok bool) {
	if !a.holding() { // the usual end, which then costs no allocation
		return chunk, false
	}
	for _, ch := range a.sortedChoices() {
		d := Delta{ToolCalls: ch.releasePlaceholders(nil)}
		if ch.think.Holding() {
			d.Reasoning, d.Content = ch.think.Flush()
			ch.reasoning.WriteString(d.Reasoning)
			ch.addContent(&d)
		}
		if len(d.ToolCalls) > 0 || d.Content != "" || d.Reasoning != "" {
			chunk.Choices = append(chunk.Choices, ChunkChoice{Index: ch.index, Delta: d})
		}
	}
	if chunk.Choices == nil {
		return chunk, false
	}
	chunk.ID, chunk.Object, chunk.Created, chunk.Model, chunk.SystemFingerprint = a.id, a.object, a.created, a.model, a.fingerprint
	return chunk, true
}

// holding reports whether some call holds back a "{}".
func (a *ChatAccumulator) holding() bool {
	if a.choices == nil {
		return a.last != nil && a.last.holding()
	}
	for _, ch := range a.choices {
		if ch.holding() {
			return true
		}
	}
	return false
}

func (ch *accChoice) holding() bool {
	if ch.think.Holding() {
		return true
	}
	for _, call := range ch.calls {
		if call.placeholder {
			return true
		}
	}
	return false
}

// Completion returns everything accumulated so far as one answer: choices in index order, content
// and reasoning joined, tool calls reassembled in index order, the Extra fields of each message and
// call merged from their fragments as RawFields says.
func (a *ChatAccumulator) Completion() *ChatCompletion {
	out := &ChatCompletion{
		ID: a.id, Object: "chat.completion", Created: a.created, Model: a.model,
		SystemFingerprint: a.fingerprint, Usage: a.usage,
		UsageFromProvider: a.usageProvider, UsageFromConsumer: a.usageCon,
	}
	choices := a.sortedChoices()
	out.Choices = make([]Choice, 0, len(choices))
	for _, ch := range choices {
		out.Choices = append(out.Choices, Choice{Index: ch.index, Message: ch.message(), FinishReason: ch.finish, Logprobs: ch.logprobs})
	}
	return out
}

// sortedChoices returns the choices in index order.
func (a *ChatAccumulator) sortedChoices() []*accChoice {
	if a.choices == nil {
		if a.last == nil {
			return nil
		}
		return []*accChoice{a.last}
	}
	list := make([]*accChoice, 0, len(a.choices))
	for _, index := range slices.Sorted(maps.Keys(a.choices)) {
		list = append(list, a.choices[index])
	}
	return list
}

func (ch *accChoice) message() Message {
	// Text still held back goes where it would if the answer ended now.
	heldReasoning, heldContent := ch.think.Pending()
	msg := Message{Role: ch.role, Content: ch.content.String() + heldContent,
		Reasoning: ch.reasoning.String() + heldReasoning, Refusal: ch.refusal.String(), Parts: slices.Clone(ch.parts),
		Extra: ch.fields.fields()}
	if msg.Parts != nil && heldContent != "" {
		msg.Parts = append(msg.Parts, TextPart(heldContent))
	}
	if msg.Role == "" {
		msg.Role = RoleAssistant
	}
	for _, index := range slices.Sorted(maps.Keys(ch.calls)) {
		call := ch.calls[index]
		args := call.args.String()
		if call.placeholder {
			args = "{}"
		}
		typ := call.typ
		if typ == "" {
			typ = "function"
		}
		msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: call.id, Type: typ, Function: FunctionCall{Name: call.name, Arguments: args},
			Extra: call.fields.fields()})
	}
	return msg
}

// setIf sets *dst to v unless v is empty or already there, which spares a stream's every chunk
// four stores into the heap.
func setIf(dst *string, v string) {
	if v != "" && !chunkmem.Equal(v, *dst) {
		*dst = v
	}
}

// setIfAny keeps the usage a chunk brings; like setIf, it stores nothing for the chunks without,
// which are most of them.
func setIfAny(dst **Usage, u *Usage) {
	if u != nil {
		*dst = u
	}
}

// joined concatenates the pieces of a text. A text that came in one piece is kept as it came,
// without a copy: so is most reasoning, every answer that was not streamed, and the first delta.
type joined struct {
	first string
	whole chunkmem.Builder // all of the text, once a second piece came
}

func (j *joined) WriteString(s string) {
	switch {
	case s == "":
	case j.whole.Len() > 0:
		// Grow doubles the memory, where append grows a long text by a quarter: that halves what a
		// long answer's text allocates on its way.
		if j.whole.Cap()-j.whole.Len() < len(s) {
			j.whole.Grow(len(s))
		}
		j.whole.WriteString(s)
	case j.first == "":
		j.first = s
	default:
		j.whole.WriteString(j.first)
		j.whole.WriteString(s)
		j.first = ""
	}
}

func (j *joined) Len() int { return len(j.first) + j.whole.Len() }

func (j *joined) String() string {
	if j.whole.Len() > 0 {
		return j.whole.String()
	}
	return j.first
}

// splitThink moves the reasoning of a whole answer's message out of its content. A message with
// Parts is left as it is: its content must stay their text.
func splitThink(m *Message) {
	if m.Parts != nil || m.Content == "" {
		return
	}
	reasoning, content := think.Split(m.Content)
	m.Content = content
	m.Reasoning += reasoning
}
