package mcptools

import (
	"context"
	"crypto/sha256"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxPages bounds a listing of tools, far above what a server sends (the official SDK's servers
// put 1000 tools on a page), so that a server that keeps making up new cursors cannot keep
// FromSession going for ever.
const maxPages = 1000

// PaginationError ends a listing of the server's tools that the server cannot bring to an end: a
// next-page cursor that an earlier page already gave, which would send the listing round the same
// pages for ever, or more pages than any server sends. The cursor itself is not reported: it is
// the server's opaque token.
type PaginationError struct {
	Page   int    // the page at fault, counting from 1
	Reason string // what was wrong with it
}

// Error names the page and the reason.
func (e *PaginationError) Error() string {
	return fmt.Sprintf("mcptools: listing the server's tools stopped at page %d: %s", e.Page, e.Reason)
}

// listTools lists the server's tools, every page, keeping those keep accepts (all when keep is
// nil). Each cursor is asked for once: the pages that gave them are remembered by the cursor's
// hash, so that a server's long cursors are not all kept.
func listTools(ctx context.Context, session *mcp.ClientSession, keep func(*mcp.Tool) bool) ([]*mcp.Tool, error) {
	var listed []*mcp.Tool
	givenBy := map[[sha256.Size]byte]int{} // a cursor's hash -> the page that gave it
	params := &mcp.ListToolsParams{}
	for page := 1; ; page++ {
		res, err := session.ListTools(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("mcptools: listing the server's tools: %w", err)
		}
		if res == nil {
			return nil, fmt.Errorf("mcptools: listing the server's tools: page %d: the server sent no result", page)
		}
		for _, tool := range res.Tools {
			if tool != nil && (keep == nil || keep(tool)) {
				listed = append(listed, tool)
			}
		}
		if res.NextCursor == "" {
			return listed, nil
		}
		sum := sha256.Sum256([]byte(res.NextCursor))
		if earlier, ok := givenBy[sum]; ok {
			return nil, &PaginationError{Page: page, Reason: fmt.Sprintf("its next-page cursor is the one page %d gave, so the pages would repeat for ever", earlier)}
		}
		if page == maxPages {
			return nil, &PaginationError{Page: page, Reason: fmt.Sprintf("more than %d pages", maxPages)}
		}
		givenBy[sum] = page
		params = &mcp.ListToolsParams{Cursor: res.NextCursor}
	}
}
