// Command infergate explores the Inference Gateway from a terminal: which models are up, what
// providers charge, whether a key works; chat, transcribe, speak and embed; run a file of batch
// requests.
//
//	go run ./cmd/infergate models
//	go install github.com/infergate/infergate-go/cmd/infergate@latest
//
// It reads INFERGATE_API_KEY, INFERGATE_BASE_URL and INFERGATE_ACCESS_TOKEN as the SDK does.
// Without a key or an address it runs against an in-process fake gateway (package gatewaytest)
// and says so on stderr, so every command works on a fresh clone, offline. Run infergate help for
// the commands.
//
// What a server sends is shown with its control characters escaped (\x1b, \u202e), so that a
// model's name or an error message cannot drive the terminal; --json, audio and the files -o
// writes hold exactly what was sent.
package main

import (
	"context"
	"os"
	"os/signal"
	"time"
)

func main() {
	ctx, interrupts, stop := interruptible()
	a := &app{
		interrupts: interrupts,
		stdin:      os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		getenv: os.Getenv,
		now:    time.Now,
		term:   terminalsOf(os.Stdin, os.Stdout, os.Stderr),
	}
	code := a.run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// interruptible returns the run's context and the interrupter each Ctrl-C goes to: it cancels
// the answer of a conversation in progress, or else the run, so that the call in progress ends
// cleanly; a Ctrl-C while that call has not ended exits at once, for a call that does not.
func interruptible() (context.Context, *interrupter, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	in := &interrupter{cancelRun: cancel, exit: func() { os.Exit(exitInterrupted) }}
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-signals:
				in.interrupt()
			case <-done:
				return
			}
		}
	}()
	return ctx, in, func() {
		signal.Stop(signals)
		close(done)
		cancel()
	}
}
