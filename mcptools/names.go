package mcptools

import (
	"fmt"
	"hash/fnv"
	"regexp"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxNameLength is the longest function name the chat API takes.
const maxNameLength = 64

var (
	validName   = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	invalidRune = regexp.MustCompile(`[^a-zA-Z0-9_-]`)
)

// functionNames gives each tool a function name the model accepts, unique among them. Names that
// are valid as they are keep them first, so that a tool renamed into, say, "fs_read" never takes
// the name of a tool that was called that already.
func functionNames(prefix string, tools []*mcp.Tool) []string {
	names := make([]string, len(tools))
	taken := map[string]bool{}
	for i, t := range tools {
		if name := prefix + t.Name; validName.MatchString(name) && !taken[name] {
			names[i], taken[name] = name, true
		}
	}
	for i, t := range tools {
		if names[i] != "" {
			continue
		}
		full := prefix + t.Name
		base := invalidRune.ReplaceAllString(full, "_") // ASCII from here on: cutting bytes cuts no rune
		name := base
		for attempt := 0; name == "" || len(name) > maxNameLength || taken[name]; attempt++ {
			suffix := "_" + shortHash(full, attempt)
			name = base[:min(len(base), maxNameLength-len(suffix))] + suffix
		}
		names[i], taken[name] = name, true
	}
	return names
}

// shortHash is 8 hex digits that stand for s (and attempt, which changes them on a clash).
func shortHash(s string, attempt int) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%d:%s", attempt, s)
	return fmt.Sprintf("%08x", h.Sum32())
}
