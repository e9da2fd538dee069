package infergate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"

	"github.com/infergate/infergate-go"
)

// historyGateway keeps chats in memory the way the gateway's chat-history routes do, with naive UTC
// timestamps.
func historyGateway() *httptest.Server {
	type message struct {
		ID       string `json:"id"`
		Role     string `json:"role"`
		Content  string `json:"content"`
		Sequence int    `json:"sequence"`
		Created  string `json:"created_at"`
		Tokens   *int   `json:"tokens"`
	}
	type chat struct {
		ID       string    `json:"id"`
		Title    string    `json:"title"`
		Created  string    `json:"created_at"`
		Updated  string    `json:"updated_at"`
		Count    int       `json:"message_count"`
		Messages []message `json:"messages,omitempty"`
	}
	var mu sync.Mutex
	var chats []*chat // oldest first
	find := func(id string) *chat {
		for _, c := range chats {
			if c.ID == id {
				return c
			}
		}
		return nil
	}
	reply := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/chat-history/chats", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		c := &chat{ID: "chat-" + strconv.Itoa(len(chats)+1), Created: "2025-10-15T12:00:00.000001", Updated: "2025-10-15T12:00:00.000001"}
		json.NewDecoder(r.Body).Decode(c)
		chats = append(chats, c)
		reply(w, http.StatusCreated, c)
	})
	mux.HandleFunc("GET /api/v1/chat-history/chats", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		skip, _ := strconv.Atoi(r.URL.Query().Get("skip"))
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		page := []chat{}
		for i := len(chats) - 1 - skip; i >= 0 && len(page) < limit; i-- {
			page = append(page, chat{ID: chats[i].ID, Title: chats[i].Title, Created: chats[i].Created, Updated: chats[i].Updated, Count: chats[i].Count})
		}
		reply(w, http.StatusOK, page)
	})
	mux.HandleFunc("GET /api/v1/chat-history/chats/{id}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if c := find(r.PathValue("id")); c != nil {
			reply(w, http.StatusOK, c)
			return
		}
		reply(w, http.StatusNotFound, map[string]string{"detail": "Chat not found"})
	})
	mux.HandleFunc("PUT /api/v1/chat-history/chats/{id}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		c := find(r.PathValue("id"))
		json.NewDecoder(r.Body).Decode(c)
		c.Updated = "2025-10-16T09:30:00"
		reply(w, http.StatusOK, chat{ID: c.ID, Title: c.Title, Created: c.Created, Updated: c.Updated, Count: c.Count})
	})
	mux.HandleFunc("DELETE /api/v1/chat-history/chats/{id}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		for i, c := range chats {
			if c.ID == r.PathValue("id") {
				chats = append(chats[:i], chats[i+1:]...)
			}
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /api/v1/chat-history/chats/{id}/messages", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		c := find(r.PathValue("id"))
		var m message
		json.NewDecoder(r.Body).Decode(&m)
		c.Count++
		m.ID, m.Sequence, m.Created = "msg-"+strconv.Itoa(c.Count), c.Count, "2025-10-15T12:01:00"
		c.Messages = append(c.Messages, m)
		reply(w, http.StatusCreated, m)
	})
	mux.HandleFunc("GET /api/v1/chat-history/chats/{id}/messages", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		reply(w, http.StatusOK, find(r.PathValue("id")).Messages)
	})
	return httptest.NewServer(mux)
}

// newHistoryExampleClient returns a client for the fake gateway, with one chat already stored.
func newHistoryExampleClient(url string) *infergate.Client {
	client, err := infergate.NewClient(infergate.WithBaseURL(url),
		infergate.WithAPIKey("sk-example"), infergate.WithAccessToken("eyJ.example.jwt"))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.History.Create(context.Background(), "Trip plans"); err != nil {
		log.Fatal(err)
	}
	return client
}

func ExampleHistoryService_Rename() {
	srv := historyGateway()
	defer srv.Close()
	client := newHistoryExampleClient(srv.URL)

	chat, err := client.History.Rename(context.Background(), "chat-1", "Lisbon in May")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(chat.Title, "updated", chat.UpdatedAt) // naive timestamps are read as UTC
	// Output: Lisbon in May updated 2025-10-16 09:30:00 +0000 UTC
}

func ExampleHistoryService_Create() {
	srv := historyGateway()
	defer srv.Close()
	client := newHistoryExampleClient(srv.URL)

	chat, err := client.History.Create(context.Background(), "Recipes")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(chat.ID, chat.Title, chat.CreatedAt.Format("2006-01-02T15:04:05.000000Z07:00"))
	// Output: chat-2 Recipes 2025-10-15T12:00:00.000001Z
}

func ExampleHistoryService_Get() {
	srv := historyGateway()
	defer srv.Close()
	client := newHistoryExampleClient(srv.URL)
	ctx := context.Background()

	if _, err := client.History.AddMessage(ctx, "chat-1", infergate.AddMessageRequest{Role: infergate.RoleUser, Content: "Where to?"}); err != nil {
		log.Fatal(err)
	}
	chat, err := client.History.Get(ctx, "chat-1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(chat.Title, chat.MessageCount)
	for _, m := range chat.Messages {
		fmt.Printf("%d %s: %s\n", m.Sequence, m.Role, m.Content)
	}
	// Output:
	// Trip plans 1
	// 1 user: Where to?
}

func ExampleHistoryService_List() {
	srv := historyGateway()
	defer srv.Close()
	client := newHistoryExampleClient(srv.URL)
	ctx := context.Background()
	if _, err := client.History.Create(ctx, "Recipes"); err != nil {
		log.Fatal(err)
	}

	for chat, err := range client.History.List(ctx) { // newest first, fetched page by page
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(chat.ID, chat.Title)
	}
	// Output:
	// chat-2 Recipes
	// chat-1 Trip plans
}

func ExampleHistoryService_Archive() {
	srv := historyGateway()
	defer srv.Close()
	client := newHistoryExampleClient(srv.URL)

	err := client.History.Archive(context.Background(), "chat-1")
	fmt.Println(err)
	// Output: <nil>
}

func ExampleHistoryService_Delete() {
	srv := historyGateway()
	defer srv.Close()
	client := newHistoryExampleClient(srv.URL)
	ctx := context.Background()

	if err := client.History.Delete(ctx, "chat-1"); err != nil {
		log.Fatal(err)
	}
	_, err := client.History.Get(ctx, "chat-1")
	fmt.Println(err)
	// Output: infergate: 404 Not Found: Chat not found
}

func ExampleHistoryService_AddMessage() {
	srv := historyGateway()
	defer srv.Close()
	client := newHistoryExampleClient(srv.URL)

	m, err := client.History.AddMessage(context.Background(), "chat-1",
		infergate.AddMessageRequest{Role: infergate.RoleAssistant, Content: "Lisbon.", Tokens: infergate.Ptr(2)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.ID, m.Sequence, m.Role, m.Tokens)
	// Output: msg-1 1 assistant 2
}

func ExampleHistoryService_Messages() {
	srv := historyGateway()
	defer srv.Close()
	client := newHistoryExampleClient(srv.URL)
	ctx := context.Background()
	for _, m := range []infergate.AddMessageRequest{
		{Role: infergate.RoleUser, Content: "Where to?"},
		{Role: infergate.RoleAssistant, Content: "Lisbon."},
	} {
		if _, err := client.History.AddMessage(ctx, "chat-1", m); err != nil {
			log.Fatal(err)
		}
	}

	for m, err := range client.History.Messages(ctx, "chat-1") {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %s\n", m.Role, m.Content)
	}
	// Output:
	// user: Where to?
	// assistant: Lisbon.
}
