package infergate

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// rotatingChats renders the page a server ignoring skip sends: always the same 50 chats, rotated by
// the offset so that the first one differs on every page.
func rotatingChats(skip int, withIDs bool) string {
	items := make([]string, historyPageSize)
	for i := range items {
		n := (i + skip/historyPageSize) % historyPageSize
		id := ""
		if withIDs {
			id = fmt.Sprintf("c%d", n)
		}
		items[i] = fmt.Sprintf(`{"id":%q,"title":"Chat %d","created_at":"2025-10-15T12:00:00"}`, id, n)
	}
	return "[" + strings.Join(items, ",") + "]"
}

// chatsFrom renders the page an honest server sends: total chats without ids, from skip on.
func chatsFrom(skip, limit, total int) string {
	var items []string
	for n := skip; n < min(skip+limit, total); n++ {
		items = append(items, fmt.Sprintf(`{"title":"Chat %d","created_at":"2025-10-15T12:00:00"}`, n))
	}
	return "[" + strings.Join(items, ",") + "]"
}

func collect[T any](seq func(func(T, error) bool)) (items []T, err error) {
	for item, e := range seq {
		if e != nil {
			return items, e
		}
		items = append(items, item)
	}
	return items, nil
}

// TestPaginationEndsOnRepeatedPages lists chats and messages from servers that ignore skip, with and
// without ids: the listing yields each item once and ends with a *PaginationError after the first
// page that brings nothing new, where it used to loop for hundreds of requests or stop silently.
func TestPaginationEndsOnRepeatedPages(t *testing.T) {
	t.Parallel()
	for _, withIDs := range []bool{true, false} {
		srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
			skip, _ := strconv.Atoi(r.URL.Query().Get("skip"))
			body := rotatingChats(skip, withIDs)
			if strings.HasSuffix(r.URL.Path, "/messages") {
				body = strings.ReplaceAll(body, `"title":"Chat`, `"role":"user","content":"Message`)
			}
			_, _ = io.WriteString(w, body)
		})
		client, _ := newTestClient(t, srv.URL)
		chats, err := collect(client.History.List(t.Context()))
		messages, msgErr := collect(client.History.Messages(t.Context(), "c1"))
		var pagination *PaginationError
		for name, got := range map[string]struct {
			n   int
			err error
		}{"List": {len(chats), err}, "Messages": {len(messages), msgErr}} {
			if got.n != historyPageSize || !errors.As(got.err, &pagination) || pagination.Page != 2 {
				t.Errorf("%s (ids: %v): %d items, err %v; want %d items and a *PaginationError at page 2", name, withIDs, got.n, got.err, historyPageSize)
			}
		}
		if got := srv.hits.Load(); got != 4 {
			t.Errorf("ids %v: server saw %d requests, want 2 per listing", withIDs, got)
		}
	}
}

// TestPaginationWithoutIDs reads every page of chats that carry no id from an honest server, where
// the listing used to stop after the first page.
func TestPaginationWithoutIDs(t *testing.T) {
	t.Parallel()
	srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		skip, _ := strconv.Atoi(r.URL.Query().Get("skip"))
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		_, _ = io.WriteString(w, chatsFrom(skip, limit, 120))
	})
	client, _ := newTestClient(t, srv.URL)
	chats, err := collect(client.History.List(t.Context()))
	if err != nil || len(chats) != 120 {
		t.Fatalf("got %d chats, %v; want 120", len(chats), err)
	}
	for i, c := range chats {
		if c.Title != fmt.Sprintf("Chat %d", i) {
			t.Fatalf("chat %d is %q", i, c.Title)
		}
	}
}

// TestPaginationSkipsShiftedDuplicates has a chat created while the loop runs, which shifts the
// offsets by one: the chat at the page boundary comes back, and is not yielded twice.
func TestPaginationSkipsShiftedDuplicates(t *testing.T) {
	t.Parallel()
	srv := newCountedServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		skip, _ := strconv.Atoi(r.URL.Query().Get("skip"))
		if skip > 0 {
			skip-- // a new chat at the top pushed everything down by one
		}
		_, _ = io.WriteString(w, chatPage(skip, min(historyPageSize, 80-skip)))
	})
	client, _ := newTestClient(t, srv.URL)
	chats, err := collect(client.History.List(t.Context()))
	if err != nil || len(chats) != 80 {
		t.Fatalf("got %d chats, %v; want the 80 distinct ones", len(chats), err)
	}
}
