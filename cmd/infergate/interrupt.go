package main

import (
	"context"
	"sync"
)

// interrupter decides what a Ctrl-C does. While an answer of a conversation streams, it cancels
// that answer and the conversation goes on; otherwise it cancels the run (the call in progress
// ends cleanly, with exit status 130). A Ctrl-C that comes while a cancelled call has not yet
// ended exits at once, for a call that does not.
type interrupter struct {
	cancelRun context.CancelFunc
	exit      func() // ends the process; main's is os.Exit(exitInterrupted)

	mu         sync.Mutex
	runEnded   bool               // cancelRun was called
	turn       context.CancelFunc // the answer's, while one streams
	turnEnding bool               // turn was cancelled, and the answer has not returned yet
}

// interrupt is one Ctrl-C.
func (in *interrupter) interrupt() {
	in.mu.Lock()
	defer in.mu.Unlock()
	switch {
	case in.turn != nil && !in.turnEnding:
		in.turnEnding = true
		in.turn()
	case !in.runEnded && !in.turnEnding:
		in.runEnded = true
		in.cancelRun()
	default:
		in.exit()
	}
}

// answer returns the context of one answer of a conversation, which a Ctrl-C cancels without
// ending the run; end releases it, and reports whether a Ctrl-C cancelled it. An app without an
// interrupter (one a test makes) gives ctx itself.
func (in *interrupter) answer(ctx context.Context) (turnCtx context.Context, end func() (interrupted bool)) {
	if in == nil {
		return ctx, func() bool { return false }
	}
	turnCtx, cancel := context.WithCancel(ctx)
	in.mu.Lock()
	in.turn, in.turnEnding = cancel, false
	in.mu.Unlock()
	return turnCtx, func() bool {
		in.mu.Lock()
		defer in.mu.Unlock()
		interrupted := in.turnEnding
		in.turn, in.turnEnding = nil, false
		cancel()
		return interrupted
	}
}
