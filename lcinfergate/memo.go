package lcinfergate

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"hash"
	"maps"
	"strings"
	"sync"

	infergate "github.com/infergate/infergate-go"
)

// memoSize and memoBytes bound the answers whose reasoning and fields an LLM keeps, in number and
// in bytes: a conversation sends back its recent turns, and older ones need not stay in memory.
const (
	memoSize  = 1024
	memoBytes = 8 << 20
)

// reasoningMemo keeps what an answer must send back that llms.MessageContent has no place for:
// the reasoning of an answer that called tools, and the fields of an answer's message and calls
// that the SDK does not model. It keys them by the answer's conversation and its calls (its text,
// when it has none): when a caller sends the answer back as an AI message, after the same
// messages, the message finds them again, and the SDK sends them with it. It keeps copies, at most
// size of them and bytes in all, the oldest going first; an answer larger than bytes is not kept.
type reasoningMemo struct {
	mu          sync.Mutex
	size, bytes int // the bounds: entries, and bytes of reasoning and fields
	held        int // the bytes kept
	byKey       map[[sha256.Size]byte]turn
	order       [][sha256.Size]byte // keys, oldest first
}

// turn is what the memo keeps of one answer.
type turn struct {
	reasoning string                // of a turn that called tools
	fields    infergate.RawFields   // the message's
	calls     []infergate.RawFields // each call's, in the calls' order
}

func newReasoningMemo(size, bytes int) *reasoningMemo {
	return &reasoningMemo{size: size, bytes: bytes, byKey: map[[sha256.Size]byte]turn{}}
}

// weight is the bytes a turn keeps: its reasoning, and its fields' keys and values.
func (t turn) weight() int {
	n := len(t.reasoning) + fieldsWeight(t.fields)
	for _, c := range t.calls {
		n += fieldsWeight(c)
	}
	return n
}

func fieldsWeight(f infergate.RawFields) int {
	n := 0
	for k, v := range f {
		n += len(k) + len(v)
	}
	return n
}

// copyFields copies f's keys and values: an answer's fields share memory with its text, which the
// memo must not keep.
func copyFields(f infergate.RawFields) infergate.RawFields {
	if f == nil {
		return nil
	}
	out := make(infergate.RawFields, len(f))
	for k, v := range f {
		out[strings.Clone(k)] = bytes.Clone(v)
	}
	return out
}

// conversation identifies the messages a request sent before an answer, by a digest of them.
type conversation [sha256.Size]byte

// conversationHash digests a request's messages one after the other, so that each AI message is
// keyed by what came before it without hashing the whole history again for each.
type conversationHash struct{ h hash.Hash }

func newConversationHash() conversationHash { return conversationHash{sha256.New()} }

func (c conversationHash) add(msgs ...infergate.Message) {
	for _, m := range msgs {
		b, _ := json.Marshal(m) // a message that cannot be encoded fails the request that holds it
		c.h.Write(b)
		c.h.Write([]byte{0})
	}
}

func (c conversationHash) sum() (out conversation) {
	c.h.Sum(out[:0])
	return out
}

// key identifies a turn by its conversation and by its calls' ids, names and arguments, which
// callers copy unchanged into the AI message they send back; a turn without calls by its text. The
// calls alone would not do: two conversations on one LLM whose calls look alike (providers that
// number their ids call_0, call_1 in every answer, or send none) would trade their reasoning.
func key(conv conversation, m *infergate.Message) [sha256.Size]byte {
	h := sha256.New()
	h.Write(conv[:])
	for _, c := range m.ToolCalls {
		h.Write([]byte(c.ID))
		h.Write([]byte{0})
		h.Write([]byte(c.Function.Name))
		h.Write([]byte{0})
		h.Write([]byte(c.Function.Arguments))
		h.Write([]byte{1})
	}
	if len(m.ToolCalls) == 0 {
		h.Write([]byte{2})
		h.Write([]byte(m.Content))
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// put keeps what answer m, which followed conv, must send back, if anything.
func (m *reasoningMemo) put(conv conversation, msg infergate.Message) {
	t := turn{fields: msg.Extra}
	if len(msg.ToolCalls) > 0 {
		t.reasoning = msg.Reasoning
	}
	kept := t.reasoning != "" || len(t.fields) > 0
	for _, c := range msg.ToolCalls {
		t.calls = append(t.calls, c.Extra)
		kept = kept || len(c.Extra) > 0
	}
	if !kept || t.weight() > m.bytes {
		return
	}
	t.reasoning, t.fields = strings.Clone(t.reasoning), copyFields(t.fields)
	for i, c := range t.calls {
		t.calls[i] = copyFields(c)
	}
	k := key(conv, &msg)
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.byKey[k]; ok {
		m.held -= old.weight()
	} else {
		m.order = append(m.order, k)
	}
	m.byKey[k] = t
	m.held += t.weight()
	for len(m.order) > m.size || m.held > m.bytes {
		m.held -= m.byKey[m.order[0]].weight()
		delete(m.byKey, m.order[0])
		m.order = m.order[1:]
	}
}

// get gives msg, an answer sent back after conv, what the memo kept of it.
func (m *reasoningMemo) get(conv conversation, msg *infergate.Message) {
	k := key(conv, msg)
	m.mu.Lock()
	t, ok := m.byKey[k]
	m.mu.Unlock()
	if !ok {
		return
	}
	msg.Reasoning, msg.Extra = t.reasoning, maps.Clone(t.fields)
	for i := range msg.ToolCalls {
		if i < len(t.calls) {
			msg.ToolCalls[i].Extra = maps.Clone(t.calls[i])
		}
	}
}
