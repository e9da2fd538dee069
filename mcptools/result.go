package mcptools

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// resultText renders a call's result as the text the model reads: every content in order, text as
// it is and what is not text described, or the structured content as JSON when there is no content.
func resultText(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 && res.StructuredContent != nil {
		if text, err := json.Marshal(res.StructuredContent); err == nil {
			return string(text)
		}
	}
	parts := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		if c != nil {
			parts = append(parts, contentText(c))
		}
	}
	return strings.Join(parts, "\n")
}

func contentText(c mcp.Content) string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case *mcp.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", mediaType(c.MIMEType), len(c.Data))
	case *mcp.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes]", mediaType(c.MIMEType), len(c.Data))
	case *mcp.ResourceLink:
		return describeLink(c)
	case *mcp.EmbeddedResource:
		return describeResource(c.Resource)
	}
	if raw, err := json.Marshal(c); err == nil {
		var kind struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(raw, &kind) == nil && kind.Type != "" {
			return fmt.Sprintf("[%s content]", kind.Type)
		}
	}
	return "[content of an unknown kind]"
}

func describeLink(l *mcp.ResourceLink) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[resource link: %s", l.URI)
	if name := cmp.Or(l.Title, l.Name); name != "" {
		fmt.Fprintf(&b, ", %q", name)
	}
	if l.MIMEType != "" {
		fmt.Fprintf(&b, ", %s", l.MIMEType)
	}
	if l.Description != "" {
		fmt.Fprintf(&b, ": %s", l.Description)
	}
	b.WriteString("]")
	return b.String()
}

func describeResource(r *mcp.ResourceContents) string {
	switch {
	case r == nil:
		return "[resource without contents]"
	case r.Text != "" || len(r.Blob) == 0:
		return fmt.Sprintf("[resource %s, %s]\n%s", r.URI, mediaType(r.MIMEType), r.Text)
	}
	return fmt.Sprintf("[resource %s: %s, %d bytes]", r.URI, mediaType(r.MIMEType), len(r.Blob))
}

func mediaType(t string) string {
	if t == "" {
		return "unknown type"
	}
	return t
}
