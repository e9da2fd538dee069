package main

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// TestOutput runs what main runs, against the fake gateway.
func TestOutput(t *testing.T) {
	t.Setenv("INFERGATE_API_KEY", "")
	t.Setenv("INFERGATE_BASE_URL", "")
	var out strings.Builder
	client, stop, err := gatewaytest.Connect(&out, os.Getenv, fake()...)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := run(context.Background(), &out, client); err != nil {
		t.Fatal(err)
	}
	want := `using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)
created 00000000-0000-4000-8000-000000000001 "New chat", updated 12:34:56
renamed 00000000-0000-4000-8000-000000000001 to "Weekend in Lisbon", updated 12:35:56
deleted 00000000-0000-4000-8000-000000000001
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// TestDemoLeavesNothing checks the requests of the demo, and that its chat is gone afterwards.
func TestDemoLeavesNothing(t *testing.T) {
	srv := gatewaytest.New(t, fake()...)
	if err := run(context.Background(), new(strings.Builder), srv.Client()); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range srv.Requests() {
		got = append(got, r.Method+" "+r.Path+" "+r.RawQuery+" "+string(r.Body))
	}
	const chat = "/api/v1/chat-history/chats/00000000-0000-4000-8000-000000000001"
	want := []string{
		`POST /api/v1/chat-history/chats  {"title":"New chat"}`,
		`PUT ` + chat + `  {"title":"Weekend in Lisbon"}`,
		`DELETE ` + chat + ` archive_only=false `,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if chats := srv.Chats(); len(chats) != 0 {
		t.Errorf("%d chats left behind", len(chats))
	}
}

func TestRenameGivenChat(t *testing.T) {
	tests := []struct {
		name    string
		args    func(chatID string) []string
		want    string
		wantErr func(error) bool
	}{
		{name: "renames", args: func(id string) []string { return []string{id, "Groceries"} },
			want: `renamed 00000000-0000-4000-8000-000000000001 to "Groceries", updated 12:35:56` + "\n"},
		{name: "unknown chat", args: func(string) []string { return []string{"no-such-chat", "Groceries"} },
			wantErr: func(err error) bool { return errors.Is(err, infergate.ErrNotFound) }},
		{name: "title too long", args: func(id string) []string { return []string{id, strings.Repeat("x", 201)} },
			wantErr: func(err error) bool {
				var v *infergate.ValidationError
				return errors.As(err, &v)
			}},
		{name: "one argument", args: func(id string) []string { return []string{id} },
			wantErr: func(err error) bool { return err != nil && strings.HasPrefix(err.Error(), "usage:") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := gatewaytest.New(t, fake()...)
			client := srv.Client()
			chat, err := client.History.Create(context.Background(), "Shopping")
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			err = run(context.Background(), &out, client, tt.args(chat.ID)...)
			if tt.wantErr != nil {
				if !tt.wantErr(err) {
					t.Errorf("err = %v", err)
				}
				if title := srv.Chats()[0].Title; title != "Shopping" {
					t.Errorf("title changed to %q", title)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("output = %q, want %q", out.String(), tt.want)
			}
			if title := srv.Chats()[0].Title; title != "Groceries" {
				t.Errorf("stored title = %q", title)
			}
		})
	}
}
