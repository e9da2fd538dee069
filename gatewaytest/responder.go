package gatewaytest

import (
	"fmt"
	"strings"
)

// WithResponder gives the server a standing responder: each chat completion
// that finds no scripted reply queued (Enqueue, WithReplies) is answered with
// respond's reply to the request, so that a demo server or a long-running
// example answers every question, not only as many as were queued. The reply
// is used as a queued one is: its Respond, Object, Quirks and the rest apply.
// respond is called for one request at a time or for several at once, as they
// come, and must be safe for that.
func WithResponder(respond func(Request) Reply) ServerOption {
	return func(c *config) { c.responder = respond }
}

// quoted is how much of a question DefaultAnswer quotes.
const quoted = 60

// DefaultAnswer is the content of the reply a chat completion gets when
// nothing is scripted and no responder is set: a sentence that says it comes
// from the fake and quotes the start of the question (the last user message),
// so that it reads as a stand-in for a model's answer, and a test can tell
// which question an answer is to. It depends on the question alone.
func DefaultAnswer(question string) string {
	question = strings.Join(strings.Fields(question), " ")
	if question == "" {
		return "This is the fake gateway's answer: it has no question to answer."
	}
	if runes := []rune(question); len(runes) > quoted {
		question = string(runes[:quoted]) + "…"
	}
	return fmt.Sprintf("This is the fake gateway's answer to %q: a real model would answer here.", question)
}
