package infergate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/infergate/infergate-go/internal/pagination"
)

// HistoryService manages stored chats. Get it as Client.History.
//
// Its routes take the access token from WithAccessToken (a JWT from the web application's login)
// when the client has one, and the API key otherwise, which the deployed gateway also accepts.
type HistoryService struct{ client *Client }

// MaxChatTitle is the longest chat title the gateway stores, in characters.
const MaxChatTitle = 200

// historyPageSize is how many chats or messages one List or Messages request fetches.
const historyPageSize = 50

// StoredChat is a stored conversation.
type StoredChat struct {
	ID        string    // the chat's id, a UUID: the chatID of the other methods
	Title     string    // at most MaxChatTitle characters
	CreatedAt time.Time // when the chat was created (the gateway sends UTC, with or without an offset)
	UpdatedAt time.Time // refreshed by the gateway on every change, e.g. a rename
	// MessageCount is the number of messages in the chat; 0 also when the gateway did not count them.
	MessageCount int
	// Messages holds the chat's messages, in the gateway's order, when the chat was fetched with Get.
	Messages []StoredMessage
}

// StoredMessage is a message kept in a chat's history.
type StoredMessage struct {
	ID        string    // the message's id, as the gateway gave it
	Role      Role      // RoleUser or RoleAssistant
	Content   string    // the message text
	Sequence  int       // position in the chat, counting up from the first message
	CreatedAt time.Time // when the message was added
	Tokens    int       // tokens the message took, when recorded; 0 otherwise
}

// AddMessageRequest is a message to add to a chat's history.
type AddMessageRequest struct {
	Role    Role   `json:"role"`             // RoleUser or RoleAssistant
	Content string `json:"content"`          // the message text
	Tokens  *int   `json:"tokens,omitempty"` // tokens the message took, if known (set with Ptr)
}

// Create starts a new, empty chat.
//
// POST /api/v1/chat-history/chats
func (s *HistoryService) Create(ctx context.Context, title string, opts ...Option) (*StoredChat, error) {
	if err := validateTitle(title); err != nil {
		return nil, err
	}
	return s.chat(ctx, http.MethodPost, "/chat-history/chats", chatTitle{title}, opts)
}

// Get returns a chat with its messages.
//
// GET /api/v1/chat-history/chats/{chat_id}
func (s *HistoryService) Get(ctx context.Context, chatID string, opts ...Option) (*StoredChat, error) {
	path, err := chatPath(chatID)
	if err != nil {
		return nil, err
	}
	return s.chat(ctx, http.MethodGet, path, nil, opts)
}

// Rename changes a chat's title, which must not be empty and is at most MaxChatTitle characters.
// The gateway refreshes the chat's UpdatedAt.
//
// PUT /api/v1/chat-history/chats/{chat_id}
func (s *HistoryService) Rename(ctx context.Context, chatID, title string, opts ...Option) (*StoredChat, error) {
	path, err := chatPath(chatID)
	if err != nil {
		return nil, err
	}
	if err := validateTitle(title); err != nil {
		return nil, err
	}
	return s.chat(ctx, http.MethodPut, path, chatTitle{title}, opts)
}

type chatTitle struct {
	Title string `json:"title"`
}

func (s *HistoryService) chat(ctx context.Context, method, path string, in any, opts []Option) (*StoredChat, error) {
	var out StoredChat
	r := route{op: "history.chat", method: method, path: path, auth: authHistory, payload: in}
	if err := run(ctx, s.client, opts, r, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// List returns every chat, newest first, fetching them a page at a time as the loop asks for more.
// An error ends the sequence:
//
//	for chat, err := range client.History.List(ctx) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(chat.Title)
//	}
//
// Pages are fetched by offset; a chat that shifts into a page already read (one was created while
// the loop runs) is not yielded twice. A server that repeats pages ends the loop with a
// *PaginationError.
//
// GET /api/v1/chat-history/chats
func (s *HistoryService) List(ctx context.Context, opts ...Option) iter.Seq2[StoredChat, error] {
	return listPages("/chat-history/chats", historyPager(ctx, s.client, "/chat-history/chats", "chats", func(c StoredChat) string { return c.ID }, opts))
}

// Archive hides a chat from the list but keeps it on the gateway.
//
// DELETE /api/v1/chat-history/chats/{chat_id}?archive_only=true
func (s *HistoryService) Archive(ctx context.Context, chatID string, opts ...Option) error {
	return s.remove(ctx, chatID, true, opts)
}

// Delete removes a chat and its messages for good. Use Archive to hide it instead.
//
// DELETE /api/v1/chat-history/chats/{chat_id}?archive_only=false
func (s *HistoryService) Delete(ctx context.Context, chatID string, opts ...Option) error {
	return s.remove(ctx, chatID, false, opts)
}

func (s *HistoryService) remove(ctx context.Context, chatID string, archiveOnly bool, opts []Option) error {
	path, err := chatPath(chatID)
	if err != nil {
		return err
	}
	r := route{op: "history.delete", method: http.MethodDelete, path: path, auth: authHistory,
		query: url.Values{"archive_only": {strconv.FormatBool(archiveOnly)}}}
	return run[struct{}](ctx, s.client, opts, r, nil)
}

// AddMessage appends a message to a chat's history and returns it as stored.
//
// POST /api/v1/chat-history/chats/{chat_id}/messages
func (s *HistoryService) AddMessage(ctx context.Context, chatID string, msg AddMessageRequest, opts ...Option) (*StoredMessage, error) {
	path, err := chatPath(chatID)
	if err != nil {
		return nil, err
	}
	if msg.Role != RoleUser && msg.Role != RoleAssistant {
		return nil, invalid("Role", `must be "user" or "assistant", got %q`, msg.Role)
	}
	if msg.Tokens != nil && *msg.Tokens < 0 {
		return nil, invalid("Tokens", "must not be negative, got %d", *msg.Tokens)
	}
	var out StoredMessage
	r := route{op: "history.add_message", method: http.MethodPost, path: path + "/messages", auth: authHistory, payload: msg}
	if err := run(ctx, s.client, opts, r, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Messages returns a chat's messages in the gateway's order, fetching them a page at a time as the
// loop asks for more. An error ends the sequence; no message is yielded twice, and a server that
// repeats pages ends it with a *PaginationError.
//
// GET /api/v1/chat-history/chats/{chat_id}/messages
func (s *HistoryService) Messages(ctx context.Context, chatID string, opts ...Option) iter.Seq2[StoredMessage, error] {
	path, err := chatPath(chatID)
	if err != nil {
		return func(yield func(StoredMessage, error) bool) { yield(StoredMessage{}, err) }
	}
	return listPages(path+"/messages", historyPager(ctx, s.client, path+"/messages", "messages", func(m StoredMessage) string { return m.ID }, opts))
}

// historyPager lists a chat-history route page by page. Items are told apart by id, or by their
// whole content when the server sends none, so that none is yielded twice.
func historyPager[T StoredChat | StoredMessage](ctx context.Context, c *Client, path, field string, id func(T) string, opts []Option) pagination.Pager[T] {
	return pagination.Pager[T]{
		PageSize: historyPageSize,
		Key:      func(item T) string { return pagination.Key(id(item), item) },
		Fetch: func(skip, limit int) (pagination.Page[T], error) {
			out := listOf[T]{field: field}
			r := route{op: "history.list", method: http.MethodGet, path: path, auth: authHistory, query: url.Values{
				"skip": {strconv.Itoa(skip)}, "limit": {strconv.Itoa(limit)}}}
			err := run(ctx, c, opts, r, &out)
			return pagination.Page[T]{Items: out.items}, err
		},
	}
}

// chatPath validates a chat id and returns its route. The id is escaped, so that one holding "/" or
// "?" cannot reach another route; "." and ".." are refused because servers resolve them as path
// steps.
func chatPath(chatID string) (string, error) {
	if strings.TrimSpace(chatID) == "" || chatID == "." || chatID == ".." {
		return "", invalid("ChatID", "a chat id is required, got %q", chatID)
	}
	return "/chat-history/chats/" + url.PathEscape(chatID), nil
}

func validateTitle(title string) error {
	if strings.TrimSpace(title) == "" {
		return invalid("Title", "must not be empty")
	}
	if n := utf8.RuneCountInString(title); n > MaxChatTitle {
		return invalid("Title", "at most %d characters, got %d", MaxChatTitle, n)
	}
	return nil
}

type wireChat struct {
	ID           string          `json:"id"`
	Title        string          `json:"title"`
	CreatedAt    timestamp       `json:"created_at"`
	UpdatedAt    timestamp       `json:"updated_at"`
	MessageCount *int            `json:"message_count"`
	Messages     []StoredMessage `json:"messages,omitempty"`
}

// UnmarshalJSON reads a chat, taking timestamps with or without a UTC offset (those without are UTC)
// and a null message_count as 0.
func (c *StoredChat) UnmarshalJSON(b []byte) error {
	var w wireChat
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = StoredChat{ID: w.ID, Title: w.Title, CreatedAt: time.Time(w.CreatedAt), UpdatedAt: time.Time(w.UpdatedAt),
		Messages: w.Messages}
	if w.MessageCount != nil {
		c.MessageCount = *w.MessageCount
	}
	return nil
}

// MarshalJSON writes the chat in the gateway's shape, with RFC 3339 timestamps.
func (c StoredChat) MarshalJSON() ([]byte, error) {
	return json.Marshal(wireChat{ID: c.ID, Title: c.Title, CreatedAt: timestamp(c.CreatedAt),
		UpdatedAt: timestamp(c.UpdatedAt), MessageCount: &c.MessageCount, Messages: c.Messages})
}

type wireStoredMessage struct {
	ID        string    `json:"id"`
	Role      Role      `json:"role"`
	Content   string    `json:"content"`
	Sequence  int       `json:"sequence"`
	CreatedAt timestamp `json:"created_at"`
	Tokens    *int      `json:"tokens"`
}

// UnmarshalJSON reads a stored message, with the same lenient timestamps as Chat.
func (m *StoredMessage) UnmarshalJSON(b []byte) error {
	var w wireStoredMessage
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = StoredMessage{ID: w.ID, Role: w.Role, Content: w.Content, Sequence: w.Sequence,
		CreatedAt: time.Time(w.CreatedAt)}
	if w.Tokens != nil {
		m.Tokens = *w.Tokens
	}
	return nil
}

// MarshalJSON writes the message in the gateway's shape, with an RFC 3339 timestamp.
func (m StoredMessage) MarshalJSON() ([]byte, error) {
	return json.Marshal(wireStoredMessage{ID: m.ID, Role: m.Role, Content: m.Content, Sequence: m.Sequence,
		CreatedAt: timestamp(m.CreatedAt), Tokens: &m.Tokens})
}

// timestamp is a time as chat history sends it: ISO 8601, often without an offset.
type timestamp time.Time

// Timestamps with an offset are RFC 3339, or ISO 8601 with a colon-less offset; those without one
// are UTC.
var (
	offsetLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700"}
	naiveLayouts  = []string{"2006-01-02T15:04:05.999999999"}
)

func (t *timestamp) UnmarshalJSON(b []byte) error {
	var s string
	if string(b) == "null" {
		return nil
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("infergate: timestamp %s is not a string", b)
	}
	if s == "" {
		return nil
	}
	if len(s) > 10 && s[10] == ' ' {
		s = s[:10] + "T" + s[11:] // Python's str(datetime) separates date and time with a space
	}
	layouts := naiveLayouts
	if len(s) > 19 && strings.ContainsAny(s[19:], "Z+-") {
		layouts = offsetLayouts
	}
	for _, layout := range layouts {
		if parsed, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			*t = timestamp(parsed)
			return nil
		}
	}
	return fmt.Errorf("infergate: cannot read timestamp %q", s)
}

func (t timestamp) MarshalJSON() ([]byte, error) {
	if time.Time(t).IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(time.Time(t).Format(time.RFC3339Nano))
}

// PaginationError ends a listing (History.List, History.Messages, Billing.Usage,
// Billing.UsageForMonth, Billing.Transactions) that the server cannot bring to an end: a page with
// nothing that was not already yielded, which a server ignoring the offset sends again and again,
// or more than a million items. The items yielded before it are all distinct.
type PaginationError struct {
	Path   string // the route listed, below /api/v1
	Page   int    // the page at fault, counting from 1
	Reason string // what was wrong with it
}

// Error names the route and the page.
func (e *PaginationError) Error() string {
	return fmt.Sprintf("infergate: listing %s stopped at page %d: %s", e.Path, e.Page, e.Reason)
}

// listPages lists a route below path through the SDK's one pagination loop: a listing the server
// cannot bring to an end stops with a *PaginationError.
func listPages[T any](path string, p pagination.Pager[T]) iter.Seq2[T, error] {
	p.Fail = func(n int, reason string) error { return &PaginationError{Path: path, Page: n, Reason: reason} }
	return pagination.Items(p)
}

// listOf decodes a JSON list that servers send either bare ([...]) or wrapped in an object under
// field ({"data":[...]}). null and a missing field give an empty list.
type listOf[T any] struct {
	field string
	items []T
}

func (l *listOf[T]) UnmarshalJSON(raw []byte) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return json.Unmarshal(raw, &l.items)
	}
	var wrapper map[string]json.RawMessage
	if err := json.Unmarshal(raw, &wrapper); err != nil {
		return err
	}
	if inner, ok := wrapper[l.field]; ok {
		return json.Unmarshal(inner, &l.items)
	}
	return nil
}
