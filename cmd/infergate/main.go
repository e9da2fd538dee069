// Command infergate explores the Inference Gateway from a terminal: which models are up, what
// providers charge, whether a key works; chat, transcribe, speak and embed.
//
//	go run ./cmd/infergate models
//	go install github.com/infergate/infergate-go/cmd/infergate@latest
//
// It reads INFERGATE_API_KEY, INFERGATE_BASE_URL and INFERGATE_ACCESS_TOKEN as the SDK does.
// Without a key or an address it runs against an in-process fake gateway (package gatewaytest)
// and says so on stderr, so every command works on a fresh clone, offline. Run infergate help for
// the commands.
package main

import (
	"context"
	"os"
	"os/signal"
	"time"
)

func main() {
	ctx, stop := interruptible()
	a := &app{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		getenv: os.Getenv,
		now:    time.Now,
		term:   terminalsOf(os.Stdin, os.Stdout, os.Stderr),
	}
	code := a.run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// interruptible returns a context that the first Ctrl-C cancels, so the call in progress ends
// cleanly; a second Ctrl-C exits at once, for a call that does not.
func interruptible() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt)
	go func() {
		<-signals
		cancel()
		<-signals
		os.Exit(exitInterrupted)
	}()
	return ctx, func() {
		signal.Stop(signals)
		cancel()
	}
}
