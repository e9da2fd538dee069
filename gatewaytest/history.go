package gatewaytest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// TimeLayout is how the fake writes chat-history timestamps: naive UTC with
// microseconds and no offset, the way the deployed gateway does.
const TimeLayout = "2006-01-02T15:04:05.000000"

// maxTitle is the contract's limit, counted in characters, not bytes.
const maxTitle = 200

// StoredChat is a stored chat as Server.Chats reports it.
type StoredChat struct {
	ID        string          // a UUID the server makes
	Title     string          // at most 200 characters
	CreatedAt time.Time       // sent in TimeLayout, without a zone, as the gateway does
	UpdatedAt time.Time       // moved on by a rename or an added message
	Archived  bool            // deleted with archive_only=true: hidden from the list, still readable
	Messages  []StoredMessage // in order of Sequence
}

// StoredMessage is a stored chat message.
type StoredMessage struct {
	ID        string    // a UUID the server makes
	Role      string    // user or assistant
	Content   string    // the text as sent
	Sequence  int       // 1 for a chat's first message
	CreatedAt time.Time // when the message was added, by the server's clock
	Tokens    *int      // as the request gave it; nil sends null
}

type chatRecord struct {
	StoredChat
	touch uint64 // the order of the last change, newest highest
}

// Chats returns copies of every stored chat, archived ones included, in
// creation order.
func (s *Server) Chats() []StoredChat {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]StoredChat, len(s.chats))
	for i, c := range s.chats {
		out[i] = c.StoredChat
		out[i].Messages = slices.Clone(c.Messages)
	}
	return out
}

func (s *Server) uuid() string {
	return fmt.Sprintf("00000000-0000-4000-8000-%012x", s.nextID())
}

func (c *chatRecord) wire(withMessages bool) map[string]any {
	m := map[string]any{
		"id": c.ID, "title": c.Title, "message_count": len(c.Messages),
		"created_at": c.CreatedAt.Format(TimeLayout), "updated_at": c.UpdatedAt.Format(TimeLayout),
	}
	if withMessages {
		msgs := make([]any, len(c.Messages))
		for i, msg := range c.Messages {
			msgs[i] = msg.wire()
		}
		m["messages"] = msgs
	}
	return m
}

func (m StoredMessage) wire() map[string]any {
	return map[string]any{"id": m.ID, "role": m.Role, "content": m.Content, "sequence": m.Sequence,
		"created_at": m.CreatedAt.Format(TimeLayout), "tokens": m.Tokens}
}

// findChat must be called with s.mu held.
func (s *Server) findChat(id string) (int, *chatRecord) {
	for i, c := range s.chats {
		if c.ID == id {
			return i, c
		}
	}
	return -1, nil
}

// readTitle checks a {title} body like the gateway's pydantic model does.
func readTitle(w http.ResponseWriter, r *http.Request) (string, bool) {
	body := requestJSON(r)
	if body == nil {
		validation(w, "json_invalid", []any{"body", 0}, "JSON decode error", map[string]any{})
		return "", false
	}
	raw, ok := body["title"]
	if !ok {
		validation(w, "missing", []any{"body", "title"}, "Field required", body)
		return "", false
	}
	title, ok := raw.(string)
	if !ok {
		validation(w, "string_type", []any{"body", "title"}, "Input should be a valid string", raw)
		return "", false
	}
	if utf8.RuneCountInString(title) > maxTitle {
		validation(w, "string_too_long", []any{"body", "title"}, "String should have at most 200 characters", title)
		return "", false
	}
	return title, true
}

func requestJSON(r *http.Request) map[string]any {
	rec, _ := r.Context().Value(recordKey{}).(*Request)
	if rec == nil {
		return nil
	}
	return rec.JSON
}

func (s *Server) handleCreateChat(w http.ResponseWriter, r *http.Request) {
	title, ok := readTitle(w, r)
	if !ok {
		return
	}
	id, now := s.uuid(), s.now(r)
	s.mu.Lock()
	s.touch++
	c := &chatRecord{StoredChat: StoredChat{ID: id, Title: title, CreatedAt: now, UpdatedAt: now}, touch: s.touch}
	s.chats = append(s.chats, c)
	body := c.wire(false)
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, body)
}

func (s *Server) handleListChats(w http.ResponseWriter, r *http.Request) {
	skip, ok := intQuery(w, r, "skip", 0)
	if !ok {
		return
	}
	limit, ok := intQuery(w, r, "limit", 50)
	if !ok {
		return
	}
	s.mu.Lock()
	var live []*chatRecord
	for _, c := range s.chats {
		if !c.Archived {
			live = append(live, c)
		}
	}
	slices.SortFunc(live, func(a, b *chatRecord) int { return cmp.Compare(b.touch, a.touch) })
	out := []any{}
	for i, c := range live {
		if i >= skip && len(out) < limit {
			out = append(out, c.wire(false))
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// withChat runs f on the chat named in the path under the lock, answering
// 404 for an unknown id; f returns the status and body to send.
func (s *Server) withChat(w http.ResponseWriter, r *http.Request, f func(i int, c *chatRecord) (int, any)) {
	s.mu.Lock()
	i, c := s.findChat(r.PathValue("id"))
	if c == nil {
		s.mu.Unlock()
		detail(w, http.StatusNotFound, "Chat not found")
		return
	}
	status, body := f(i, c)
	s.mu.Unlock()
	if body == nil {
		w.WriteHeader(status)
		return
	}
	writeJSON(w, status, body)
}

func (s *Server) handleGetChat(w http.ResponseWriter, r *http.Request) {
	s.withChat(w, r, func(_ int, c *chatRecord) (int, any) { return http.StatusOK, c.wire(true) })
}

func (s *Server) handleRenameChat(w http.ResponseWriter, r *http.Request) {
	title, ok := readTitle(w, r)
	if !ok {
		return
	}
	now := s.now(r)
	s.withChat(w, r, func(_ int, c *chatRecord) (int, any) {
		s.touch++
		c.Title, c.UpdatedAt, c.touch = title, now, s.touch
		return http.StatusOK, c.wire(false)
	})
}

func (s *Server) handleDeleteChat(w http.ResponseWriter, r *http.Request) {
	archive := true
	if v := r.URL.Query().Get("archive_only"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			validation(w, "bool_parsing", []any{"query", "archive_only"}, "Input should be a valid boolean, unable to interpret input", v)
			return
		}
		archive = b
	}
	s.withChat(w, r, func(i int, c *chatRecord) (int, any) {
		if archive {
			c.Archived = true
		} else {
			s.chats = slices.Delete(s.chats, i, i+1)
		}
		return http.StatusNoContent, nil
	})
}

type messageCreate struct {
	Role    *string `json:"role"`
	Content *string `json:"content"`
	Tokens  *int    `json:"tokens"`
}

func (s *Server) handleAddMessage(w http.ResponseWriter, r *http.Request) {
	rec, _ := r.Context().Value(recordKey{}).(*Request)
	var in messageCreate
	if rec == nil || rec.JSON == nil || json.Unmarshal(rec.Body, &in) != nil {
		validation(w, "json_invalid", []any{"body", 0}, "JSON decode error", map[string]any{})
		return
	}
	switch {
	case in.Role == nil:
		validation(w, "missing", []any{"body", "role"}, "Field required", rec.JSON)
		return
	case in.Content == nil:
		validation(w, "missing", []any{"body", "content"}, "Field required", rec.JSON)
		return
	case *in.Role != "user" && *in.Role != "assistant":
		validation(w, "value_error", []any{"body", "role"}, "Value error, role must be 'user' or 'assistant'", *in.Role)
		return
	}
	id, now := s.uuid(), s.now(r)
	s.withChat(w, r, func(_ int, c *chatRecord) (int, any) {
		m := StoredMessage{ID: id, Role: *in.Role, Content: *in.Content, Sequence: len(c.Messages) + 1,
			CreatedAt: now, Tokens: in.Tokens}
		c.Messages = append(c.Messages, m)
		s.touch++
		c.UpdatedAt, c.touch = now, s.touch
		return http.StatusCreated, m.wire()
	})
}

func (s *Server) handleListMessages(w http.ResponseWriter, r *http.Request) {
	skip, ok := intQuery(w, r, "skip", 0)
	if !ok {
		return
	}
	limit, ok := intQuery(w, r, "limit", 100)
	if !ok {
		return
	}
	s.withChat(w, r, func(_ int, c *chatRecord) (int, any) {
		out := []any{}
		for i, m := range c.Messages {
			if i >= skip && len(out) < limit {
				out = append(out, m.wire())
			}
		}
		return http.StatusOK, out
	})
}
