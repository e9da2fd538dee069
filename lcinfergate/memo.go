package lcinfergate

import (
	"crypto/sha256"
	"encoding/json"
	"hash"
	"maps"
	"sync"

	infergate "github.com/infergate/infergate-go"
)

// memoSize bounds the answers whose reasoning and fields an LLM keeps: a conversation sends back
// its recent turns, and older ones need not stay in memory.
const memoSize = 1024

// reasoningMemo keeps what an answer must send back that llms.MessageContent has no place for:
// the reasoning of an answer that called tools, and the fields of an answer's message and calls
// that the SDK does not model. It keys them by the answer's conversation and its calls (its text,
// when it has none): when a caller sends the answer back as an AI message, after the same
// messages, the message finds them again, and the SDK sends them with it.
type reasoningMemo struct {
	mu    sync.Mutex
	size  int
	byKey map[[sha256.Size]byte]turn
	order [][sha256.Size]byte // keys, oldest first
}

// turn is what the memo keeps of one answer.
type turn struct {
	reasoning string                // of a turn that called tools
	fields    infergate.RawFields   // the message's
	calls     []infergate.RawFields // each call's, in the calls' order
}

func newReasoningMemo(size int) *reasoningMemo {
	return &reasoningMemo{size: size, byKey: map[[sha256.Size]byte]turn{}}
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
	if !kept {
		return
	}
	k := key(conv, &msg)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.byKey[k]; !ok {
		m.order = append(m.order, k)
	}
	m.byKey[k] = t
	for len(m.order) > m.size {
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
