package gateway

import (
	"context"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

func TestConnect(t *testing.T) {
	tests := []struct {
		name, key, baseURL, firstLine string
	}{
		{"fake without a key", "", "", "using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)"},
		{"real with a key", "sk-real", "", "using the real gateway at " + infergate.DefaultBaseURL},
		{"real at a chosen address", "sk-real", "https://gateway.example/api/v1", "using the real gateway at https://gateway.example/api/v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("INFERGATE_API_KEY", tt.key)
			t.Setenv("INFERGATE_BASE_URL", tt.baseURL)
			var out strings.Builder
			client, stop, err := Connect(&out)
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			if client == nil {
				t.Fatal("no client")
			}
			if got := out.String(); got != tt.firstLine+"\n" {
				t.Errorf("output = %q, want %q", got, tt.firstLine+"\n")
			}
		})
	}
}

func TestConnectScriptsTheFake(t *testing.T) {
	t.Setenv("INFERGATE_API_KEY", "")
	client, stop, err := Connect(new(strings.Builder), gatewaytest.WithReplies(gatewaytest.Reply{Content: "scripted"}))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	resp, err := client.Chat.Create(context.Background(), infergate.ChatRequest{
		Messages: []infergate.Message{infergate.UserMessage("hi")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Text(); got != "scripted" {
		t.Errorf("answer = %q, want the scripted reply", got)
	}
}

func TestConnectRejectsABadBaseURL(t *testing.T) {
	t.Setenv("INFERGATE_API_KEY", "sk-real")
	t.Setenv("INFERGATE_BASE_URL", "ftp://nowhere")
	var out strings.Builder
	if _, _, err := Connect(&out); err == nil {
		t.Fatal("want an error for an ftp base URL")
	}
	if out.Len() != 0 {
		t.Errorf("printed %q before failing", out.String())
	}
}
