package lcinfergate

import (
	"crypto/sha256"
	"encoding/json"
	"hash"
	"strings"
	"sync"

	infergate "github.com/infergate/infergate-go"
)

// memoSize and memoBytes bound the answers whose reasoning an LLM keeps, in number and in bytes of
// reasoning: a conversation sends back its recent turns, and older ones need not stay in memory.
const (
	memoSize  = 1024
	memoBytes = 8 << 20
)

// reasoningMemo keeps the reasoning of answers that called tools, keyed by their conversation and
// their calls, because llms.MessageContent has no place for it: when a caller sends such an answer
// back as an AI message, after the same messages, its calls find the reasoning again, and the SDK
// sends it with them. It keeps copies, at most size of them and bytes of reasoning in all, the
// oldest going first; a reasoning larger than bytes is not kept.
type reasoningMemo struct {
	mu          sync.Mutex
	size, bytes int // the bounds: entries, and bytes of reasoning
	held        int // the bytes of reasoning kept
	byKey       map[[sha256.Size]byte]string
	order       [][sha256.Size]byte // keys, oldest first
}

func newReasoningMemo(size, bytes int) *reasoningMemo {
	return &reasoningMemo{size: size, bytes: bytes, byKey: map[[sha256.Size]byte]string{}}
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
// callers copy unchanged into the AI message they send back. The calls alone would not do: two
// conversations on one LLM whose calls look alike (providers that number their ids call_0,
// call_1 in every answer, or send none) would trade their reasoning.
func key(conv conversation, calls []infergate.ToolCall) [sha256.Size]byte {
	h := sha256.New()
	h.Write(conv[:])
	for _, c := range calls {
		h.Write([]byte(c.ID))
		h.Write([]byte{0})
		h.Write([]byte(c.Function.Name))
		h.Write([]byte{0})
		h.Write([]byte(c.Function.Arguments))
		h.Write([]byte{1})
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

func (m *reasoningMemo) put(conv conversation, calls []infergate.ToolCall, reasoning string) {
	if reasoning == "" || len(calls) == 0 || len(reasoning) > m.bytes {
		return
	}
	// A copy: the answer's strings share memory with its text, which the memo must not keep.
	reasoning = strings.Clone(reasoning)
	k := key(conv, calls)
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.byKey[k]; ok {
		m.held -= len(old)
	} else {
		m.order = append(m.order, k)
	}
	m.byKey[k] = reasoning
	m.held += len(reasoning)
	for len(m.order) > m.size || m.held > m.bytes {
		m.held -= len(m.byKey[m.order[0]])
		delete(m.byKey, m.order[0])
		m.order = m.order[1:]
	}
}

func (m *reasoningMemo) get(conv conversation, calls []infergate.ToolCall) string {
	if len(calls) == 0 {
		return ""
	}
	k := key(conv, calls)
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.byKey[k]
}
