package infergate_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

func ExampleSessionsService_CreateFromBid() {
	gateway := gatewaytest.NewServer()
	defer gateway.Close()
	client := gateway.Client()

	// The bid id comes from client.Bids.Rated.
	s, err := client.Sessions.CreateFromBid(context.Background(), "0xb1",
		infergate.SessionOptions{Duration: 30 * time.Minute, Failover: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.ID, s.Message)
	// Output: 0x0000000000000000000000000000000000000000000000000000000000000001 Session created successfully
}

func ExampleSessionsService_CreateForModel() {
	gateway := gatewaytest.NewServer()
	defer gateway.Close()
	client := gateway.Client()

	s, err := client.Sessions.CreateForModel(context.Background(), "llama-3.3-70b", infergate.SessionOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.ID, s.Model)
	// Output: 0x0000000000000000000000000000000000000000000000000000000000000001 llama-3.3-70b
}

func ExampleSessionsService_Ping() {
	gateway := gatewaytest.NewServer()
	defer gateway.Close()
	client := gateway.Client()
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
	gateway := gatewaytest.NewServer()
	defer gateway.Close()
	client := gateway.Client()
	ctx := context.Background()

	if _, err := client.Sessions.CreateFromBid(ctx, "0xb1", infergate.SessionOptions{}); err != nil {
		log.Fatal(err)
	}
	closed, err := client.Sessions.Close(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("closed", closed.ID)
	// Output: closed 0x0000000000000000000000000000000000000000000000000000000000000001
}

// Newer deployments manage sessions themselves: their session routes answer 404.
func ExampleSessionsService_Ping_unsupported() {
	gateway := gatewaytest.NewServer(gatewaytest.WithoutSessions())
	defer gateway.Close()
	client := gateway.Client()

	_, err := client.Sessions.Ping(context.Background())
	var apiErr *infergate.APIError
	fmt.Println(errors.Is(err, infergate.ErrSessionsUnsupported), errors.As(err, &apiErr) && apiErr.StatusCode == 404)
	// Output: true true
}
