package infergate_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/infergate/infergate-go"
)

func TestPerCallOptionsOverrideTheClientsForThatCallOnly(t *testing.T) {
	t.Parallel()
	client, mock := mockClient(t)
	seen := captureCalls(mock, http.MethodPost, chatURL, 200, okCompletion, nil)
	other := captureCalls(mock, http.MethodPost, "https://tenant-b.test/api/v1/chat/completions", 200, okCompletion, nil)
	ctx := context.Background()
	if _, err := client.Chat.Create(ctx, hello(), infergate.WithAPIKey("sk-tenant-b"), infergate.WithTimeout(30*time.Second),
		infergate.WithHeader("X-Tenant", "b")); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Chat.Create(ctx, hello(), infergate.WithBaseURL("https://tenant-b.test")); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Chat.Create(ctx, hello()); err != nil {
		t.Fatal(err)
	}
	s := *seen
	if len(s) != 2 || s[0].auth != "Bearer sk-tenant-b" || s[0].tenant != "b" || s[1].auth != "Bearer sk-secret-key" || s[1].tenant != "" {
		t.Errorf("requests = %+v", s)
	}
	if len(*other) != 1 || (*other)[0].auth != "Bearer sk-secret-key" {
		t.Errorf("per-call base URL: %+v", *other)
	}
	_, err := client.Chat.Create(ctx, hello(), infergate.WithRetryBackoff(time.Second, time.Millisecond))
	var ve *infergate.ValidationError
	if !errors.As(err, &ve) || len(*seen) != 2 {
		t.Errorf("an invalid per-call option: %v", err)
	}
}
