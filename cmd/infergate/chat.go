package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	infergate "github.com/infergate/infergate-go"
)

func (a *app) chat(ctx context.Context, args []string) error {
	f := a.newFlags("chat")
	model := f.String("m", "", "the model (default: the gateway's choice)")
	system := f.String("system", "", "a system message that sets how the model answers")
	rest, err := f.parse(args, 0, -1)
	if err != nil {
		return err
	}
	req := infergate.ChatRequest{Model: *model}
	if *system != "" {
		req.Messages = append(req.Messages, infergate.SystemMessage(*system))
	}
	// A conversation is for a person at a terminal: with --json, or with stdin not a terminal,
	// stdin is the one message, and nothing is printed but the answer.
	interactive := len(rest) == 0 && a.term.in && !f.json
	question := strings.Join(rest, " ")
	if len(rest) == 0 && !interactive {
		text, err := a.readStdin()
		if err != nil {
			return err
		}
		question = strings.TrimSpace(string(text))
	}
	if !interactive && strings.TrimSpace(question) == "" {
		return usagef("give a message, as arguments or on stdin")
	}
	client, stop, err := a.connect(f)
	if err != nil {
		return err
	}
	defer stop()
	if err := a.checkModel(ctx, client, *model); err != nil {
		return err
	}
	if !interactive {
		req.Messages = append(req.Messages, infergate.UserMessage(question))
		_, err := a.answer(ctx, client, req, f.json)
		return err
	}
	return a.converse(ctx, client, req)
}

// converse keeps a conversation on a terminal: each line is a turn, the model's answers are kept
// for the next one. A failed or interrupted turn is reported and forgotten; end of input (Ctrl-D)
// ends it. The prompt goes to stdout when that is the terminal too, else to stderr, so that
// stdout redirected to a file holds the answers alone.
func (a *app) converse(ctx context.Context, client *infergate.Client, req infergate.ChatRequest) error {
	lines := make(chan string)
	var inputErr error // set before lines is closed
	go func() {
		defer close(lines)
		scanner := a.stdinLines()
		for scanner.Scan() {
			select {
			case lines <- scanner.Text():
			case <-ctx.Done():
				return
			}
		}
		inputErr = lineError(scanner)
	}()
	fmt.Fprintln(a.stderr, "a conversation: one line per turn; Ctrl-D ends it, Ctrl-C interrupts an answer")
	prompt := a.stderr
	if a.term.out {
		prompt = a.stdout
	}
	for {
		fmt.Fprint(prompt, "> ")
		var line string
		var open bool
		select {
		case <-ctx.Done():
			fmt.Fprintln(prompt)
			return ctx.Err()
		case line, open = <-lines:
		}
		if !open {
			fmt.Fprintln(prompt)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return inputErr // nil at the end of input
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		turn := req
		turn.Messages = append(req.Messages[:len(req.Messages):len(req.Messages)], infergate.UserMessage(line))
		turnCtx, endTurn := a.interrupts.answer(ctx)
		reply, err := a.answer(turnCtx, client, turn, false)
		interrupted := endTurn()
		switch {
		case ctx.Err() != nil:
			return err
		case interrupted:
			fmt.Fprintln(a.stderr, "(interrupted: the answer is forgotten; Ctrl-C at the prompt ends the conversation)")
			continue
		case err != nil:
			fmt.Fprintln(a.stderr, errorLine(err))
			continue
		}
		req.Messages = append(turn.Messages, reply)
	}
}

// answer streams the model's answer to req onto stdout (or, with asJSON, prints the whole
// completion once it is complete) and returns the answer as a message for the conversation.
func (a *app) answer(ctx context.Context, client *infergate.Client, req infergate.ChatRequest, asJSON bool) (infergate.Message, error) {
	var info infergate.ResponseInfo
	stream, err := client.Chat.Stream(ctx, req, infergate.WithResponseInfo(&info))
	if err != nil {
		return infergate.Message{}, err
	}
	defer stream.Close()
	out := answerWriter{w: a.stdout, showReasoning: a.term.out}
	for chunk, err := range stream.All() {
		if err != nil {
			out.end()
			return infergate.Message{}, withRequestID(err, info.RequestID)
		}
		if !asJSON {
			out.write(chunk)
		}
	}
	completion := stream.Completion()
	if asJSON {
		return firstMessage(completion), writeJSON(a.stdout, completion)
	}
	out.end()
	return firstMessage(completion), nil
}

func firstMessage(c *infergate.ChatCompletion) infergate.Message {
	if len(c.Choices) == 0 {
		return infergate.AssistantMessage("")
	}
	return c.Choices[0].Message
}

// answerWriter prints a streamed answer: its text as it comes, and the model's reasoning dimmed
// before it on a terminal; piped, the reasoning is left out, so the output is the answer alone.
type answerWriter struct {
	w             io.Writer
	showReasoning bool
	reasoning     bool // dimmed reasoning is being written
	wrote         bool // something is on the current line
}

const (
	dim   = "\033[2m"
	reset = "\033[0m"
)

func (aw *answerWriter) write(chunk infergate.ChatCompletionChunk) {
	if len(chunk.Choices) == 0 {
		return
	}
	delta := chunk.Choices[0].Delta
	if delta.Reasoning != "" && aw.showReasoning {
		if !aw.reasoning {
			io.WriteString(exact(aw.w), dim)
			aw.reasoning = true
		}
		io.WriteString(aw.w, delta.Reasoning)
		aw.wrote = true
	}
	if delta.Content != "" {
		if aw.reasoning {
			io.WriteString(exact(aw.w), reset)
			io.WriteString(aw.w, "\n\n")
			aw.reasoning = false
		}
		io.WriteString(aw.w, delta.Content)
		aw.wrote = true
	}
}

// end closes the answer's line.
func (aw *answerWriter) end() {
	if aw.reasoning {
		io.WriteString(exact(aw.w), reset)
		aw.reasoning = false
	}
	if aw.wrote {
		io.WriteString(aw.w, "\n")
		aw.wrote = false
	}
}

// withRequestID adds the response's request id to a stream's error that does not carry it, so
// the one line printed is enough to report the problem.
func withRequestID(err error, id string) error {
	if id == "" || strings.Contains(err.Error(), id) {
		return err
	}
	return fmt.Errorf("%w (request %s)", err, id)
}
