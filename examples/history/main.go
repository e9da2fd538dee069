// History renames a stored chat.
//
//	go run ./examples/history <chat-id> <new title>
//	go run ./examples/history
//
// Without arguments it creates a chat, renames it and deletes it again, leaving the history as it
// was. Chat-history routes take INFERGATE_ACCESS_TOKEN (a JWT from the web app's login) when it is
// set, and the API key otherwise. It talks to the gateway at INFERGATE_BASE_URL (else the real one)
// when INFERGATE_API_KEY or INFERGATE_BASE_URL is set, and otherwise to an in-process fake.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"sync/atomic"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// fake configures a fake gateway whose clock moves on a minute per request, so that the rename
// visibly refreshes UpdatedAt. Each call gives a fresh clock.
func fake() []gatewaytest.ServerOption {
	return []gatewaytest.ServerOption{gatewaytest.WithClock(minuteTicks())}
}

func main() {
	client, stop, err := gatewaytest.Connect(os.Stdout, os.Getenv, fake()...)
	if err != nil {
		log.Fatal(err)
	}
	err = run(context.Background(), os.Stdout, client, os.Args[1:]...)
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

// run renames the chat args name, or a chat of its own when there are no args.
func run(ctx context.Context, out io.Writer, client *infergate.Client, args ...string) error {
	switch len(args) {
	case 2:
		return rename(ctx, out, client, args[0], args[1])
	case 0:
	default:
		return errors.New("usage: history [<chat-id> <new title>]")
	}
	chat, err := client.History.Create(ctx, "New chat")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "created %s %q, updated %s\n", chat.ID, chat.Title, chat.UpdatedAt.Format(time.TimeOnly))
	if err := rename(ctx, out, client, chat.ID, "Weekend in Lisbon"); err != nil {
		return err
	}
	if err := client.History.Delete(ctx, chat.ID); err != nil {
		return err
	}
	fmt.Fprintln(out, "deleted", chat.ID)
	return nil
}

func rename(ctx context.Context, out io.Writer, client *infergate.Client, chatID, title string) error {
	chat, err := client.History.Rename(ctx, chatID, title)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "renamed %s to %q, updated %s\n", chat.ID, chat.Title, chat.UpdatedAt.Format(time.TimeOnly))
	return nil
}

// minuteTicks returns a clock that starts at gatewaytest.FixedTime() and advances a minute per reading.
func minuteTicks() func() time.Time {
	var readings atomic.Int64
	return func() time.Time {
		return gatewaytest.FixedTime().Add(time.Duration(readings.Add(1)-1) * time.Minute)
	}
}
