package infergate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const chatID = "3f2b8c1e-8d4a-4c55-9a41-5b0f7f0e9c11"

const storedChat = `{"id":"` + chatID + `","title":"Trip plans","created_at":"2025-10-15T12:34:56.789012",
	"updated_at":"2025-10-16T08:00:00Z","message_count":2}`

var storedChatWant = &StoredChat{ID: chatID, Title: "Trip plans",
	CreatedAt:    time.Date(2025, 10, 15, 12, 34, 56, 789012000, time.UTC),
	UpdatedAt:    time.Date(2025, 10, 16, 8, 0, 0, 0, time.UTC),
	MessageCount: 2}

// historyCall is a chat-history request as the tests expect it, with the credential given.
func historyCall(method, route, credential, body string) catalogCall {
	c := catalogCall{Method: method, URL: catalogAPIRoot + route, Authorization: "Bearer " + credential, Body: body}
	if body != "" {
		c.ContentType = "application/json"
	}
	return c
}

func TestHistoryChatMethods(t *testing.T) {
	t.Parallel()
	chatRoute := "/chat-history/chats/" + chatID
	tests := []struct {
		name        string
		call        func(context.Context, *HistoryService) (*StoredChat, error)
		method      string
		route       string // as registered and as sent, escaped
		status      int
		answer      string
		wantBody    string
		want        *StoredChat
		jwt         bool // the client has an access token
		wantAPIKeys bool // the API key, not the JWT, is sent
	}{
		{
			name: "rename with JWT", method: http.MethodPut, route: chatRoute, status: 200, jwt: true,
			call: func(ctx context.Context, s *HistoryService) (*StoredChat, error) {
				return s.Rename(ctx, chatID, "Trip plans")
			},
			answer: storedChat, wantBody: `{"title":"Trip plans"}`, want: storedChatWant,
		},
		{
			name: "rename falls back to the API key", method: http.MethodPut, route: chatRoute, status: 200, wantAPIKeys: true,
			call: func(ctx context.Context, s *HistoryService) (*StoredChat, error) {
				return s.Rename(ctx, chatID, "Trip plans")
			},
			answer: storedChat, wantBody: `{"title":"Trip plans"}`, want: storedChatWant,
		},
		{
			name: "rename escapes the chat id", method: http.MethodPut, route: "/chat-history/chats/a%2Fb%3Fc%20d", status: 200, jwt: true,
			call: func(ctx context.Context, s *HistoryService) (*StoredChat, error) {
				return s.Rename(ctx, "a/b?c d", "Ünïcödé title ✓")
			},
			answer: storedChat, wantBody: `{"title":"Ünïcödé title ✓"}`, want: storedChatWant,
		},
		{
			name: "create", method: http.MethodPost, route: "/chat-history/chats", status: 201, jwt: true,
			call: func(ctx context.Context, s *HistoryService) (*StoredChat, error) {
				return s.Create(ctx, "New chat")
			},
			answer:   `{"id":"c1","title":"New chat","created_at":"2025-10-15T12:00:00+02:00","updated_at":"2025-10-15 10:00:00","message_count":null}`,
			wantBody: `{"title":"New chat"}`,
			want: &StoredChat{ID: "c1", Title: "New chat", CreatedAt: time.Date(2025, 10, 15, 10, 0, 0, 0, time.UTC),
				UpdatedAt: time.Date(2025, 10, 15, 10, 0, 0, 0, time.UTC)},
		},
		{
			name: "get with messages", method: http.MethodGet, route: chatRoute, status: 200, jwt: true,
			call: func(ctx context.Context, s *HistoryService) (*StoredChat, error) {
				return s.Get(ctx, chatID)
			},
			answer: `{"id":"` + chatID + `","title":"Trip plans","created_at":"2025-10-15T12:34:56.789012",
				"updated_at":"2025-10-16T08:00:00Z","message_count":2,"messages":[
				{"id":"m1","role":"user","content":"Where to?","sequence":1,"created_at":"2025-10-15T12:35:00","tokens":4},
				{"id":"m2","role":"assistant","content":"Lisbon.","sequence":2,"created_at":"2025-10-15T12:35:02.5Z","tokens":null}]}`,
			want: &StoredChat{ID: chatID, Title: "Trip plans", CreatedAt: storedChatWant.CreatedAt, UpdatedAt: storedChatWant.UpdatedAt,
				MessageCount: 2, Messages: []StoredMessage{
					{ID: "m1", Role: RoleUser, Content: "Where to?", Sequence: 1, CreatedAt: time.Date(2025, 10, 15, 12, 35, 0, 0, time.UTC), Tokens: 4},
					{ID: "m2", Role: RoleAssistant, Content: "Lisbon.", Sequence: 2, CreatedAt: time.Date(2025, 10, 15, 12, 35, 2, 5e8, time.UTC)},
				}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newCatalogMock(t)
			m.on(tt.method, tt.route, tt.status, tt.answer)
			var opts []Option
			credential := catalogAPIKey
			if tt.jwt {
				opts, credential = append(opts, WithAccessToken(catalogJWT)), catalogJWT
			}
			got, err := tt.call(t.Context(), m.client(opts...).History)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("chat (-want +got):\n%s", diff)
			}
			m.expect(historyCall(tt.method, tt.route, credential, tt.wantBody))
		})
	}
}

func TestHistoryRemove(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		call  func(context.Context, *HistoryService, string) error
		query string
	}{
		{"archive", func(ctx context.Context, s *HistoryService, id string) error { return s.Archive(ctx, id) }, "?archive_only=true"},
		{"delete", func(ctx context.Context, s *HistoryService, id string) error { return s.Delete(ctx, id) }, "?archive_only=false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newCatalogMock(t)
			route := "/chat-history/chats/" + chatID + tt.query
			m.on(http.MethodDelete, route, 204, "")
			if err := tt.call(t.Context(), m.client(WithAccessToken(catalogJWT)).History, chatID); err != nil {
				t.Fatal(err)
			}
			m.expect(historyCall(http.MethodDelete, route, catalogJWT, ""))
		})
	}
}

func TestHistoryAddMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, wantBody string
		msg            AddMessageRequest
	}{
		{"user with tokens", `{"role":"user","content":"Hi","tokens":3}`, AddMessageRequest{Role: RoleUser, Content: "Hi", Tokens: Ptr(3)}},
		{"assistant without tokens", `{"role":"assistant","content":"Hello!"}`, AddMessageRequest{Role: RoleAssistant, Content: "Hello!"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newCatalogMock(t)
			route := "/chat-history/chats/" + chatID + "/messages"
			m.on(http.MethodPost, route, 201, `{"id":"m9","role":"user","content":"Hi","sequence":3,"created_at":"2025-10-15T12:35:00.1","tokens":3}`)
			got, err := m.client(WithAccessToken(catalogJWT)).History.AddMessage(t.Context(), chatID, tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			want := &StoredMessage{ID: "m9", Role: RoleUser, Content: "Hi", Sequence: 3, Tokens: 3,
				CreatedAt: time.Date(2025, 10, 15, 12, 35, 0, 1e8, time.UTC)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			m.expect(historyCall(http.MethodPost, route, catalogJWT, tt.wantBody))
		})
	}
}

// chatPage renders n chats numbered from first, as a list page.
func chatPage(first, n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(`{"id":"c%d","title":"Chat %d","created_at":"2025-10-15T12:00:00","updated_at":"2025-10-15T12:00:00","message_count":0}`, first+i, first+i)
	}
	return "[" + strings.Join(items, ",") + "]"
}

func TestHistoryList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		pages     []string // answers to skip=0, 50, 100…; a failing page is an error body
		failAt    int      // index of the page answering 500, or -1
		stopAfter int      // the loop breaks after this many chats; 0 reads to the end
		wantIDs   int
		wantErr   bool
	}{
		{name: "three pages, last short", pages: []string{chatPage(0, 50), chatPage(50, 50), chatPage(100, 3)}, failAt: -1, wantIDs: 103},
		{name: "full page then empty page", pages: []string{chatPage(0, 50), `[]`}, failAt: -1, wantIDs: 50},
		{name: "no chats", pages: []string{`[]`}, failAt: -1, wantIDs: 0},
		{name: "caller stops early: no second request", pages: []string{chatPage(0, 50)}, failAt: -1, stopAfter: 10, wantIDs: 10},
		{name: "server ignoring skip: the repeated page ends the loop", pages: []string{chatPage(0, 50), chatPage(0, 50)}, failAt: -1, wantIDs: 50, wantErr: true},
		{name: "server ignoring limit: one request", pages: []string{chatPage(0, 51)}, failAt: -1, wantIDs: 51},
		{name: "error on the second page ends the loop", pages: []string{chatPage(0, 50), `{"detail":"boom"}`}, failAt: 1, wantIDs: 50, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newCatalogMock(t)
			var want []catalogCall
			for i, page := range tt.pages {
				route := fmt.Sprintf("/chat-history/chats?limit=50&skip=%d", i*50)
				status := 200
				if i == tt.failAt {
					status = 500
				}
				m.on(http.MethodGet, route, status, page)
				want = append(want, historyCall(http.MethodGet, route, catalogJWT, ""))
			}
			var got []StoredChat
			var gotErr error
			for chat, err := range m.client(WithAccessToken(catalogJWT)).History.List(t.Context()) {
				if err != nil {
					gotErr = err
					break
				}
				got = append(got, chat)
				if len(got) == tt.stopAfter {
					break
				}
			}
			var pagination *PaginationError
			if (gotErr != nil) != tt.wantErr || (tt.wantErr && !errors.Is(gotErr, ErrServer) && !errors.As(gotErr, &pagination)) {
				t.Errorf("err = %v, want error: %v", gotErr, tt.wantErr)
			}
			if len(got) != tt.wantIDs {
				t.Fatalf("got %d chats, want %d", len(got), tt.wantIDs)
			}
			for i, c := range got {
				if c.ID != fmt.Sprintf("c%d", i) {
					t.Fatalf("chat %d has id %s: order or paging is wrong", i, c.ID)
				}
			}
			m.expect(want...)
		})
	}
}

func TestHistoryMessages(t *testing.T) {
	t.Parallel()
	m := newCatalogMock(t)
	route := "/chat-history/chats/" + chatID + "/messages?limit=50&skip=0"
	m.on(http.MethodGet, route, 200, `[{"id":"m1","role":"user","content":"Hi","sequence":1,"created_at":"2025-10-15T12:35:00","tokens":1}]`)
	var got []StoredMessage
	for msg, err := range m.client().History.Messages(t.Context(), chatID) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, msg)
	}
	want := []StoredMessage{{ID: "m1", Role: RoleUser, Content: "Hi", Sequence: 1, Tokens: 1,
		CreatedAt: time.Date(2025, 10, 15, 12, 35, 0, 0, time.UTC)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	m.expect(historyCall(http.MethodGet, route, catalogAPIKey, ""))
}

// historyCalls runs each chat-history method once.
var historyCalls = map[string]func(context.Context, *Client) error{
	"Create": func(ctx context.Context, c *Client) error { _, err := c.History.Create(ctx, "t"); return err },
	"Get":    func(ctx context.Context, c *Client) error { _, err := c.History.Get(ctx, chatID); return err },
	"Rename": func(ctx context.Context, c *Client) error { _, err := c.History.Rename(ctx, chatID, "t"); return err },
	"Archive": func(ctx context.Context, c *Client) error {
		return c.History.Archive(ctx, chatID)
	},
	"Delete": func(ctx context.Context, c *Client) error { return c.History.Delete(ctx, chatID) },
	"AddMessage": func(ctx context.Context, c *Client) error {
		_, err := c.History.AddMessage(ctx, chatID, AddMessageRequest{Role: RoleUser, Content: "x"})
		return err
	},
	"List":     func(ctx context.Context, c *Client) error { return firstIterError(c.History.List(ctx)) },
	"Messages": func(ctx context.Context, c *Client) error { return firstIterError(c.History.Messages(ctx, chatID)) },
}

func firstIterError[T any](seq func(func(T, error) bool)) error {
	for _, err := range seq {
		if err != nil {
			return err
		}
	}
	return errors.New("the sequence ended without an error")
}

func TestHistoryErrorEnvelopes(t *testing.T) {
	t.Parallel()
	checkEnvelopes(t, historyCalls)
}

func TestHistoryValidation(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", MaxChatTitle+1)
	tests := []struct {
		name, field string
		call        func(context.Context, *HistoryService) error
	}{
		{"rename: empty id", "ChatID", func(ctx context.Context, s *HistoryService) error { _, err := s.Rename(ctx, "", "t"); return err }},
		{"rename: dot-dot id", "ChatID", func(ctx context.Context, s *HistoryService) error { _, err := s.Rename(ctx, "..", "t"); return err }},
		{"rename: blank title", "Title", func(ctx context.Context, s *HistoryService) error { _, err := s.Rename(ctx, chatID, " \t"); return err }},
		{"rename: 201 characters", "Title", func(ctx context.Context, s *HistoryService) error { _, err := s.Rename(ctx, chatID, long); return err }},
		{"create: empty title", "Title", func(ctx context.Context, s *HistoryService) error { _, err := s.Create(ctx, ""); return err }},
		{"get: empty id", "ChatID", func(ctx context.Context, s *HistoryService) error { _, err := s.Get(ctx, ""); return err }},
		{"delete: dot id", "ChatID", func(ctx context.Context, s *HistoryService) error { return s.Delete(ctx, ".") }},
		{"archive: empty id", "ChatID", func(ctx context.Context, s *HistoryService) error { return s.Archive(ctx, "") }},
		{"add: system role", "Role", func(ctx context.Context, s *HistoryService) error {
			_, err := s.AddMessage(ctx, chatID, AddMessageRequest{Role: RoleSystem, Content: "x"})
			return err
		}},
		{"add: negative tokens", "Tokens", func(ctx context.Context, s *HistoryService) error {
			_, err := s.AddMessage(ctx, chatID, AddMessageRequest{Role: RoleUser, Content: "x", Tokens: Ptr(-1)})
			return err
		}},
		{"messages: empty id", "ChatID", func(ctx context.Context, s *HistoryService) error {
			return firstIterError(s.Messages(ctx, ""))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newCatalogMock(t)
			err := tt.call(t.Context(), m.client().History)
			var verr *ValidationError
			if !errors.As(err, &verr) || verr.Field != tt.field {
				t.Fatalf("err = %v, want a ValidationError on %s", err, tt.field)
			}
			if n := m.mock.GetTotalCallCount(); n != 0 {
				t.Errorf("%d requests were sent", n)
			}
		})
	}
}

func TestHistoryTitleCountsCharactersNotBytes(t *testing.T) {
	t.Parallel()
	m := newCatalogMock(t)
	m.on(http.MethodPut, "/chat-history/chats/"+chatID, 200, storedChat)
	title := strings.Repeat("é", MaxChatTitle) // 400 bytes, 200 characters
	if _, err := m.client().History.Rename(t.Context(), chatID, title); err != nil {
		t.Fatalf("a %d-character title was refused: %v", MaxChatTitle, err)
	}
}

func TestChatJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		{`{"id":"c","title":"t","created_at":"2025-10-15T12:34:56.789012","updated_at":"2025-10-15T14:34:56+02:00","message_count":null}`,
			`{"id":"c","title":"t","created_at":"2025-10-15T12:34:56.789012Z","updated_at":"2025-10-15T14:34:56+02:00","message_count":0}`},
		{`{"id":"c","title":"t","created_at":"2025-10-15 12:34:56","updated_at":null,"message_count":7}`,
			`{"id":"c","title":"t","created_at":"2025-10-15T12:34:56Z","updated_at":null,"message_count":7}`},
		{`{"id":"c","title":"t","created_at":"2025-10-15T12:34:56+0530","updated_at":""}`,
			`{"id":"c","title":"t","created_at":"2025-10-15T12:34:56+05:30","updated_at":null,"message_count":0}`},
	}
	for _, tt := range tests {
		var c StoredChat
		if err := json.Unmarshal([]byte(tt.in), &c); err != nil {
			t.Errorf("Unmarshal(%s): %v", tt.in, err)
			continue
		}
		out, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, string(out)); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	}
	for _, bad := range []string{`{"created_at":"yesterday"}`, `{"created_at":1760000000}`, `{"message_count":"many"}`} {
		var c StoredChat
		if err := json.Unmarshal([]byte(bad), &c); err == nil {
			t.Errorf("Unmarshal(%s) succeeded", bad)
		}
	}
}

func BenchmarkDecodeChatPage(b *testing.B) {
	page := []byte(chatPage(0, historyPageSize))
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		out := listOf[StoredChat]{field: "chats"}
		if err := json.Unmarshal(page, &out); err != nil {
			b.Fatal(err)
		}
	}
}
