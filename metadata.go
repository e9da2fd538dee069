package infergate

import "strings"

// The strings of one decoded answer share memory: a completion's share one buffer as long as its
// body, a stream's are cut from blocks of a few KiB. Metadata (ids, model, fingerprint, roles,
// finish reasons, the ids, types and names of tool calls) is what programs keep once the text is
// gone, in logs, maps and caches, so it is cut from blocks of its own: keeping it keeps at most a
// few hundred bytes of other metadata, never text.

// commonMetadata are values that nearly every answer repeats; they are handed out as they are,
// without a copy.
var commonMetadata = [...]string{"assistant", "function", "stop", "tool_calls", "length", "chat.completion", "chat.completion.chunk"}

// Metadata blocks start small, for the usual answer's id and model, and double up to
// metadataBlock; a longer piece than metadataPiece gets memory of its own.
const (
	firstMetadataBlock = 64
	metadataBlock      = 256
	metadataPiece      = 64
)

// metadataMemory cuts metadata strings from its blocks, an allocation a block rather than a string.
type metadataMemory struct{ block strings.Builder }

// fromBytes returns b as a string that shares memory with no text.
func (m *metadataMemory) fromBytes(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	for _, common := range commonMetadata {
		if string(b) == common {
			return common
		}
	}
	if !m.room(len(b)) {
		return string(b)
	}
	start := m.block.Len()
	m.block.Write(b)
	return m.block.String()[start:]
}

// fromString returns s as a string that shares memory with no text.
func (m *metadataMemory) fromString(s string) string {
	if s == "" {
		return ""
	}
	for _, common := range commonMetadata {
		if s == common {
			return common
		}
	}
	if !m.room(len(s)) {
		return strings.Clone(s)
	}
	start := m.block.Len()
	m.block.WriteString(s)
	return m.block.String()[start:]
}

// room makes room for n bytes in the block, a new block when it is short; it reports false for a
// piece too long to be cut from one.
func (m *metadataMemory) room(n int) bool {
	if n > metadataPiece {
		return false
	}
	if m.block.Cap()-m.block.Len() < n {
		size := min(metadataBlock, max(firstMetadataBlock, 2*m.block.Cap()))
		m.block = strings.Builder{}
		m.block.Grow(size)
	}
	return true
}
