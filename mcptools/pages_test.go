package mcptools_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/infergate/infergate-go/mcptools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pagedServer answers tools/list from next, which gives the cursor that follows each page's
// cursor (the first page's is ""), with one tool per page; it counts the pages asked for, and
// cancels the listing after far more than any test needs, so that a listing that does not end
// fails instead of hanging.
func pagedServer(t *testing.T, cancel context.CancelFunc, next func(cursor string) string) (*mcp.ClientSession, *atomic.Int64) {
	t.Helper()
	var pages atomic.Int64
	s := newServer(0)
	addTool(s, "unused", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult("unused"), nil
	})
	s.AddReceivingMiddleware(func(handler mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/list" {
				return handler(ctx, method, req)
			}
			if pages.Add(1) > 1100 {
				cancel()
			}
			cursor := req.GetParams().(*mcp.ListToolsParams).Cursor
			return &mcp.ListToolsResult{
				Tools:      []*mcp.Tool{{Name: fmt.Sprintf("tool_%d", pages.Load()), InputSchema: map[string]any{"type": "object"}}},
				NextCursor: next(cursor),
			}, nil
		}
	})
	cs, _ := connect(t, s)
	return cs, &pages
}

// TestFromSessionRepeatedCursor: a server whose next-page cursor is one the listing was already
// given, the last page's or an earlier one's, makes FromSession fail at once with a
// *PaginationError that does not quote the cursor, instead of listing the same pages for ever.
func TestFromSessionRepeatedCursor(t *testing.T) {
	t.Parallel()
	const secret = "cursor-with-a-token-sk-123"
	tests := []struct {
		name      string
		next      map[string]string // page cursor -> next page cursor
		wantPages int64             // pages asked for
		wantText  string
	}{
		{"the same cursor again", map[string]string{"": secret, secret: secret},
			2, "stopped at page 2: its next-page cursor is the one page 1 gave"},
		{"a cycle of two cursors", map[string]string{"": secret + "A", secret + "A": secret + "B", secret + "B": secret + "A"},
			3, "stopped at page 3: its next-page cursor is the one page 1 gave"},
		{"a cycle back to the second page", map[string]string{"": "A", "A": "B", "B": "C", "C": "B"},
			4, "stopped at page 4: its next-page cursor is the one page 2 gave"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cs, pages := pagedServer(t, cancel, func(cursor string) string { return tt.next[cursor] })
			tools, err := mcptools.FromSession(ctx, cs)
			var pe *mcptools.PaginationError
			if !errors.As(err, &pe) || tools != nil {
				t.Fatalf("FromSession = %d tools, %v; want a *PaginationError (%d pages asked for)", len(tools), err, pages.Load())
			}
			if !strings.Contains(err.Error(), tt.wantText) || strings.Contains(err.Error(), secret) {
				t.Errorf("error %q, want it to say %q and not quote the cursor", err, tt.wantText)
			}
			if got := pages.Load(); got != tt.wantPages {
				t.Errorf("%d pages asked for, want %d", got, tt.wantPages)
			}
		})
	}
}

// TestFromSessionEndlessCursors: a server that makes up a new cursor for every page is stopped
// after 1000 pages.
func TestFromSessionEndlessCursors(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n atomic.Int64
	cs, pages := pagedServer(t, cancel, func(string) string { return fmt.Sprint("page-", n.Add(1)) })
	_, err := mcptools.FromSession(ctx, cs)
	var pe *mcptools.PaginationError
	if !errors.As(err, &pe) || pe.Page != 1000 || !strings.Contains(err.Error(), "more than 1000 pages") {
		t.Fatalf("FromSession = %v, want a *PaginationError at page 1000", err)
	}
	if got := pages.Load(); got != 1000 {
		t.Errorf("%d pages asked for, want 1000", got)
	}
}

// TestFromSessionCursorPages: a server whose cursors come back, after the listing has moved on,
// but never as a next-page cursor of the same listing, is listed whole, each page once.
func TestFromSessionCursorPages(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs, pages := pagedServer(t, cancel, func(cursor string) string {
		return map[string]string{"": "A", "A": "B", "B": ""}[cursor]
	})
	for range 2 { // a second listing starts afresh
		tools, err := mcptools.FromSession(ctx, cs)
		if err != nil || len(tools) != 3 {
			t.Fatalf("FromSession = %d tools, %v; want the 3 pages' tools", len(tools), err)
		}
	}
	if got := pages.Load(); got != 6 {
		t.Errorf("%d pages asked for, want 3 per listing", got)
	}
}
