package infergate_test

import (
	"context"
	"fmt"
	"log"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// historyExample starts a fake gateway and returns a client for it and the id of a chat it
// already stores, "Trip plans".
func historyExample() (gateway *gatewaytest.Server, client *infergate.Client, chatID string) {
	gateway = gatewaytest.NewServer()
	client = gateway.Client()
	chat, err := client.History.Create(context.Background(), "Trip plans")
	if err != nil {
		log.Fatal(err)
	}
	return gateway, client, chat.ID
}

func ExampleHistoryService_Rename() {
	gateway, client, chatID := historyExample()
	defer gateway.Close()

	chat, err := client.History.Rename(context.Background(), chatID, "Lisbon in May")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(chat.Title, "updated", chat.UpdatedAt) // naive timestamps are read as UTC
	// Output: Lisbon in May updated 2025-10-15 12:34:56.789012 +0000 UTC
}

func ExampleHistoryService_Create() {
	gateway, client, _ := historyExample()
	defer gateway.Close()

	chat, err := client.History.Create(context.Background(), "Recipes")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(chat.Title, chat.CreatedAt.Format("2006-01-02T15:04:05.000000Z07:00"))
	// Output: Recipes 2025-10-15T12:34:56.789012Z
}

func ExampleHistoryService_Get() {
	gateway, client, chatID := historyExample()
	defer gateway.Close()
	ctx := context.Background()

	if _, err := client.History.AddMessage(ctx, chatID, infergate.AddMessageRequest{Role: infergate.RoleUser, Content: "Where to?"}); err != nil {
		log.Fatal(err)
	}
	chat, err := client.History.Get(ctx, chatID)
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
	gateway, client, _ := historyExample()
	defer gateway.Close()
	ctx := context.Background()
	if _, err := client.History.Create(ctx, "Recipes"); err != nil {
		log.Fatal(err)
	}

	for chat, err := range client.History.List(ctx) { // newest first, fetched page by page
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(chat.Title)
	}
	// Output:
	// Recipes
	// Trip plans
}

func ExampleHistoryService_Archive() {
	gateway, client, chatID := historyExample()
	defer gateway.Close()

	err := client.History.Archive(context.Background(), chatID)
	fmt.Println(err)
	// Output: <nil>
}

func ExampleHistoryService_Delete() {
	gateway, client, chatID := historyExample()
	defer gateway.Close()
	ctx := context.Background()

	if err := client.History.Delete(ctx, chatID); err != nil {
		log.Fatal(err)
	}
	_, err := client.History.Get(ctx, chatID)
	fmt.Println(err)
	// Output: infergate: 404 Not Found: Chat not found (request 00000003)
}

func ExampleHistoryService_AddMessage() {
	gateway, client, chatID := historyExample()
	defer gateway.Close()

	m, err := client.History.AddMessage(context.Background(), chatID,
		infergate.AddMessageRequest{Role: infergate.RoleAssistant, Content: "Lisbon.", Tokens: infergate.Ptr(2)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Sequence, m.Role, m.Tokens)
	// Output: 1 assistant 2
}

func ExampleHistoryService_Messages() {
	gateway, client, chatID := historyExample()
	defer gateway.Close()
	ctx := context.Background()
	for _, m := range []infergate.AddMessageRequest{
		{Role: infergate.RoleUser, Content: "Where to?"},
		{Role: infergate.RoleAssistant, Content: "Lisbon."},
	} {
		if _, err := client.History.AddMessage(ctx, chatID, m); err != nil {
			log.Fatal(err)
		}
	}

	for m, err := range client.History.Messages(ctx, chatID) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %s\n", m.Role, m.Content)
	}
	// Output:
	// user: Where to?
	// assistant: Lisbon.
}
