package infergate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/infergate/infergate-go"
)

// sessionsGateway serves the session routes of the deployed gateway, holding one session for the
// API key.
func sessionsGateway() *httptest.Server {
	open := ""
	mux := http.NewServeMux()
	create := func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			SessionDuration int `json:"sessionDuration"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, `{"detail":"bad body"}`, http.StatusUnprocessableEntity)
			return
		}
		open = "0x5e55"
		model := r.URL.Query().Get("model_id")
		fmt.Fprintf(w, `{"success":true,"message":"Session created for %d s","session_id":%q,"api_key_prefix":"sk-exa","model":%q}`,
			body.SessionDuration, open, model)
	}
	mux.HandleFunc("POST /api/v1/session/bidsession", create)
	mux.HandleFunc("POST /api/v1/session/modelsession", create)
	mux.HandleFunc("POST /api/v1/session/closesession", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"success":true,"message":"Session closed","session_id":%q}`, open)
		open = ""
	})
	mux.HandleFunc("POST /api/v1/session/pingsession", func(w http.ResponseWriter, r *http.Request) {
		if open == "" {
			fmt.Fprint(w, `{"status":"no_session","message":"No active session","success":false}`)
			return
		}
		fmt.Fprintf(w, `{"status":"alive","message":"Session is alive","session_id":%q,"success":true}`, open)
	})
	return httptest.NewServer(mux)
}

func newSessionsExampleClient(url string) *infergate.Client {
	client, err := infergate.NewClient(infergate.WithBaseURL(url), infergate.WithAPIKey("sk-example"))
	if err != nil {
		log.Fatal(err)
	}
	return client
}

func ExampleSessionsService_CreateFromBid() {
	srv := sessionsGateway()
	defer srv.Close()
	client := newSessionsExampleClient(srv.URL)

	// The bid id comes from client.Bids.Rated.
	s, err := client.Sessions.CreateFromBid(context.Background(), "0xb1",
		infergate.SessionOptions{Duration: 30 * time.Minute, Failover: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.ID, s.Message)
	// Output: 0x5e55 Session created for 1800 s
}

func ExampleSessionsService_CreateForModel() {
	srv := sessionsGateway()
	defer srv.Close()
	client := newSessionsExampleClient(srv.URL)

	s, err := client.Sessions.CreateForModel(context.Background(), "llama-3.3-70b", infergate.SessionOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.ID, s.Model)
	// Output: 0x5e55 llama-3.3-70b
}

func ExampleSessionsService_Ping() {
	srv := sessionsGateway()
	defer srv.Close()
	client := newSessionsExampleClient(srv.URL)
	ctx := context.Background()

	status, err := client.Sessions.Ping(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(status.State, status.Alive())
	if _, err := client.Sessions.CreateForModel(ctx, "llama-3.3-70b", infergate.SessionOptions{}); err != nil {
		log.Fatal(err)
	}
	if status, err = client.Sessions.Ping(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println(status.State, status.Alive())
	// Output:
	// no_session false
	// alive true
}

func ExampleSessionsService_Close() {
	srv := sessionsGateway()
	defer srv.Close()
	client := newSessionsExampleClient(srv.URL)
	ctx := context.Background()

	if _, err := client.Sessions.CreateFromBid(ctx, "0xb1", infergate.SessionOptions{}); err != nil {
		log.Fatal(err)
	}
	closed, err := client.Sessions.Close(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("closed", closed.ID)
	// Output: closed 0x5e55
}

// Newer deployments manage sessions themselves: their session routes answer 404.
func ExampleSessionsService_Ping_unsupported() {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	client := newSessionsExampleClient(srv.URL)

	_, err := client.Sessions.Ping(context.Background())
	var apiErr *infergate.APIError
	fmt.Println(errors.Is(err, infergate.ErrSessionsUnsupported), errors.As(err, &apiErr) && apiErr.StatusCode == 404)
	// Output: true true
}
