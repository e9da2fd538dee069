package gatewaytest_test

import (
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/infergate/infergate-go/gatewaytest"
)

// tickingClock advances one second per reading, so order shows in timestamps.
func tickingClock() func() time.Time {
	var mu sync.Mutex
	t := time.Date(2025, 10, 15, 12, 0, 0, 123456000, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}
}

// jwt sends a history request with the access token, as the contract says.
func jwt(t *testing.T, s *gatewaytest.Server, method, path, body string) (int, []byte) {
	t.Helper()
	var r = stringReader(body)
	resp, b := call(t, s, method, path, gatewaytest.DefaultAccessToken, r, "application/json")
	return resp.StatusCode, b
}

func titles(t *testing.T, body []byte) []string {
	t.Helper()
	var out []string
	for _, l := range regexp.MustCompile(`"title":"([^"]*)"`).FindAllSubmatch(body, -1) {
		out = append(out, string(l[1]))
	}
	return out
}

var naiveUTC = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$`)

func TestHistoryLifecycle(t *testing.T) {
	s := gatewaytest.New(t, gatewaytest.WithClock(tickingClock()))

	status, body := jwt(t, s, "POST", "/chat-history/chats", `{"title":"first"}`)
	if status != 201 {
		t.Fatalf("create: %d %s", status, body)
	}
	first := decode(t, body)
	jsonEqual(t, body, `{"id":"00000000-0000-4000-8000-000000000001","title":"first","message_count":0,
		"created_at":"2025-10-15T12:00:01.123456","updated_at":"2025-10-15T12:00:01.123456"}`)
	id := first["id"].(string)
	jwt(t, s, "POST", "/chat-history/chats", `{"title":"second"}`)
	jwt(t, s, "POST", "/chat-history/chats", `{"title":"third"}`)

	if _, body := jwt(t, s, "GET", "/chat-history/chats", ""); !reflect.DeepEqual(titles(t, body), []string{"third", "second", "first"}) {
		t.Errorf("list = %s", body)
	}
	if _, body := jwt(t, s, "GET", "/chat-history/chats?skip=1&limit=1", ""); !reflect.DeepEqual(titles(t, body), []string{"second"}) {
		t.Errorf("paged list = %s", body)
	}

	// Messages.
	status, body = jwt(t, s, "POST", "/chat-history/chats/"+id+"/messages", `{"role":"user","content":"hi","tokens":3}`)
	if status != 201 {
		t.Fatalf("add message: %d %s", status, body)
	}
	jsonEqual(t, body, `{"id":"00000000-0000-4000-8000-000000000004","role":"user","content":"hi","sequence":1,
		"created_at":"2025-10-15T12:00:06.123456","tokens":3}`)
	jwt(t, s, "POST", "/chat-history/chats/"+id+"/messages", `{"role":"assistant","content":"hello"}`)
	_, body = jwt(t, s, "GET", "/chat-history/chats/"+id+"/messages?skip=1", "")
	jsonEqual(t, body, `[{"id":"00000000-0000-4000-8000-000000000005","role":"assistant","content":"hello","sequence":2,
		"created_at":"2025-10-15T12:00:07.123456","tokens":null}]`)

	_, body = jwt(t, s, "GET", "/chat-history/chats/"+id, "")
	got := decode(t, body)
	if got["message_count"] != 2.0 || len(got["messages"].([]any)) != 2 || got["title"] != "first" {
		t.Errorf("get = %s", body)
	}

	// Rename refreshes updated_at and moves the chat to the top.
	status, body = jwt(t, s, "PUT", "/chat-history/chats/"+id, `{"title":"renamed"}`)
	renamed := decode(t, body)
	if status != 200 || renamed["title"] != "renamed" || renamed["created_at"] != first["created_at"] ||
		renamed["updated_at"] == first["updated_at"] || !naiveUTC.MatchString(renamed["updated_at"].(string)) {
		t.Errorf("rename: %d %s", status, body)
	}
	if _, body := jwt(t, s, "GET", "/chat-history/chats", ""); titles(t, body)[0] != "renamed" {
		t.Errorf("list after rename = %s", body)
	}

	// Archive hides from the list; hard delete removes.
	if status, _ := jwt(t, s, "DELETE", "/chat-history/chats/"+id, ""); status != 204 {
		t.Errorf("archive: %d", status)
	}
	if _, body := jwt(t, s, "GET", "/chat-history/chats", ""); !reflect.DeepEqual(titles(t, body), []string{"third", "second"}) {
		t.Errorf("list after archive = %s", body)
	}
	if status, _ := jwt(t, s, "GET", "/chat-history/chats/"+id, ""); status != 200 {
		t.Errorf("archived chat unreadable: %d", status)
	}
	if status, _ := jwt(t, s, "DELETE", "/chat-history/chats/"+id+"?archive_only=false", ""); status != 204 {
		t.Errorf("delete: %d", status)
	}
	if status, body := jwt(t, s, "GET", "/chat-history/chats/"+id, ""); status != 404 || string(body) != `{"detail":"Chat not found"}` {
		t.Errorf("deleted chat: %d %s", status, body)
	}
	chats := s.Chats()
	if len(chats) != 2 || chats[0].Title != "second" || chats[0].Archived {
		t.Errorf("Chats() = %+v", chats)
	}
}

func TestHistoryArchivedFlag(t *testing.T) {
	s := gatewaytest.New(t)
	_, body := jwt(t, s, "POST", "/chat-history/chats", `{"title":"a"}`)
	id := decode(t, body)["id"].(string)
	jwt(t, s, "POST", "/chat-history/chats/"+id+"/messages", `{"role":"user","content":"x"}`)
	jwt(t, s, "DELETE", "/chat-history/chats/"+id+"?archive_only=true", "")
	c := s.Chats()
	if len(c) != 1 || !c[0].Archived || len(c[0].Messages) != 1 || c[0].Messages[0].Content != "x" || !c[0].CreatedAt.Equal(gatewaytest.FixedTime()) {
		t.Errorf("Chats() = %+v", c)
	}
}

func TestHistoryRejections(t *testing.T) {
	s := gatewaytest.New(t)
	_, body := jwt(t, s, "POST", "/chat-history/chats", `{"title":"a"}`)
	id := decode(t, body)["id"].(string)
	long := strings.Repeat("é", 201) // 201 characters, 402 bytes
	tests := []struct {
		name, method, path, body string
		status                   int
		errType                  string
	}{
		{"rename unknown", "PUT", "/chat-history/chats/nope", `{"title":"x"}`, 404, ""},
		{"rename missing title", "PUT", "/chat-history/chats/" + id, `{}`, 422, "missing"},
		{"rename too long", "PUT", "/chat-history/chats/" + id, `{"title":"` + long + `"}`, 422, "string_too_long"},
		{"rename not a string", "PUT", "/chat-history/chats/" + id, `{"title":5}`, 422, "string_type"},
		{"create bad json", "POST", "/chat-history/chats", `{`, 422, "json_invalid"},
		{"message bad role", "POST", "/chat-history/chats/" + id + "/messages", `{"role":"system","content":"x"}`, 422, "value_error"},
		{"message missing content", "POST", "/chat-history/chats/" + id + "/messages", `{"role":"user"}`, 422, "missing"},
		{"message unknown chat", "POST", "/chat-history/chats/nope/messages", `{"role":"user","content":"x"}`, 404, ""},
		{"bad skip", "GET", "/chat-history/chats?skip=x", "", 422, "int_parsing"},
		{"bad archive flag", "DELETE", "/chat-history/chats/" + id + "?archive_only=maybe", "", 422, "bool_parsing"},
		{"delete unknown", "DELETE", "/chat-history/chats/nope", "", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := jwt(t, s, tt.method, tt.path, tt.body)
			if status != tt.status {
				t.Fatalf("status %d, want %d: %s", status, tt.status, body)
			}
			if tt.errType == "" {
				jsonEqual(t, body, `{"detail":"Chat not found"}`)
				return
			}
			d, _ := decode(t, body)["detail"].([]any)
			if len(d) != 1 || d[0].(map[string]any)["type"] != tt.errType {
				t.Errorf("detail = %s", body)
			}
		})
	}
	// Exactly 200 characters is allowed.
	if status, body := jwt(t, s, "PUT", "/chat-history/chats/"+id, `{"title":"`+strings.Repeat("é", 200)+`"}`); status != 200 {
		t.Errorf("200-character title: %d %s", status, body)
	}
}
