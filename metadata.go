package infergate

import "strings"

// The strings of one decoded answer share memory: a completion's share one buffer as long as its
// body, a stream's are cut from blocks of a few KiB. Metadata (ids, model, fingerprint, roles,
// finish reasons, the ids, types and names of tool calls) is what programs keep once the text is
// gone, in logs, maps and caches, so it gets memory of its own: keeping it keeps nothing else.

// commonMetadata are values that nearly every answer repeats; they are handed out as they are,
// without a copy.
var commonMetadata = [...]string{"assistant", "function", "stop", "tool_calls", "length", "chat.completion", "chat.completion.chunk"}

// ownString returns s in memory of its own, or the shared string when s is a common value.
func ownString(s string) string {
	if s == "" {
		return ""
	}
	for _, common := range commonMetadata {
		if s == common {
			return common
		}
	}
	return strings.Clone(s)
}

// ownBytes is ownString for bytes read off the wire.
func ownBytes(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	for _, common := range commonMetadata {
		if string(b) == common {
			return common
		}
	}
	return string(b)
}
