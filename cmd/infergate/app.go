package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// Exit statuses.
const (
	exitOK          = 0
	exitFailed      = 1   // the call failed: the error is on stderr
	exitUsage       = 2   // the command line was wrong
	exitInterrupted = 130 // Ctrl-C, as shells report a command killed by SIGINT
)

// app is one run of the tool: its streams, environment and clock, so that tests run commands in
// process, in parallel, with none of the process's own.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	now            func() time.Time
	term           terminals
	interrupts     *interrupter // where Ctrl-C goes; nil in tests that cancel ctx themselves
	// clientOpts go to every client the run makes: nil but in tests that need a transport of
	// their own (inside a synctest bubble, where the shared default transport must not be used).
	clientOpts []infergate.Option
}

// terminals says which of the standard streams are terminals.
type terminals struct{ in, out, err bool }

// command is one subcommand.
type command struct {
	name    string
	args    string // the arguments after the flags, for the usage line
	summary string
	example string
	run     func(a *app, ctx context.Context, args []string) error
}

// commands is the tool's subcommands, in the order help lists them. It is set by init because
// the commands' help reads it.
var commands []command

func init() {
	commands = []command{
		{"models", "", "list the models the gateway serves", "infergate models --type llm", (*app).models},
		{"bids", "MODEL", "list the providers' bids for a model, best first, with a session's cost", "infergate bids llama-3.3-70b --duration 30m", (*app).bids},
		{"chat", "[MESSAGE...]", "ask a model, streaming the answer; without a message, a conversation at a terminal", `infergate chat -m llama-3.3-70b "What is the capital of Portugal?"`, (*app).chat},
		{"transcribe", "FILE|URL", "turn speech into text or subtitles", "infergate transcribe meeting.mp3 --format srt -o meeting.srt", (*app).transcribe},
		{"speak", "TEXT", "turn text into speech", `infergate speak "Hello from the gateway." -o hello.mp3`, (*app).speak},
		{"embed", "[TEXT...]", "embed texts (the arguments, or the lines of stdin); --json prints the vectors", `infergate embed "first text" "second text"`, (*app).embed},
		{"batch", "INPUT.jsonl", "run a file of OpenAI batch requests into a file of results, resumably", "infergate batch requests.jsonl -o results.jsonl --concurrency 32", (*app).batch},
		{"balance", "", "show the account's balance", "infergate balance", (*app).balance},
		{"usage", "", "list this month's billed calls", "infergate usage --month 2025-10", (*app).usage},
		{"health", "", "check the gateway's health (exit status 1 when not healthy)", "infergate health", (*app).health},
	}
}

// run runs the command line args (without the program's name) and returns the exit status.
func (a *app) run(ctx context.Context, args []string) int {
	a.stdout, a.stderr = escaping(a.stdout), escaping(a.stderr)
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		if len(args) > 1 {
			cmd, ok := lookup(args[1])
			if !ok {
				return a.unknownCommand(args[1])
			}
			return a.run(ctx, []string{cmd.name, "--help"})
		}
		if len(args) == 0 {
			printHelp(a.stderr)
			return exitUsage
		}
		printHelp(a.stdout)
		return exitOK
	}
	cmd, ok := lookup(args[0])
	if !ok {
		return a.unknownCommand(args[0])
	}
	err := cmd.run(a, ctx, args[1:])
	return a.exit(ctx, cmd, err)
}

// helpNotes is what a command's help says beyond its summary: of stdin, for the commands that read
// it.
var helpNotes = map[string]string{
	"chat": "Without a message, stdin is the message; at a terminal (and without --json), a conversation:\n" +
		"one line per turn, Ctrl-C cancels the answer streaming, Ctrl-D ends it.\n" +
		"Stdin is read up to " + stdinBound + " (in a conversation, per line); more is refused with exit status 2.",
	"embed": "Stdin is read up to " + stdinBound + " in all; more is refused with exit status 2.",
	"batch": batchHelp,
}

// lookup finds a command by name.
func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// printHelp lists the commands.
func printHelp(w io.Writer) {
	fmt.Fprintln(w, "infergate explores the Inference Gateway from a terminal.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: infergate COMMAND [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Every command takes --base-url URL and -h for its help; all but speak, which writes audio,")
	fmt.Fprintln(w, "take --json (output for scripts).")
	fmt.Fprintln(w, "Configuration: INFERGATE_API_KEY, INFERGATE_BASE_URL, INFERGATE_ACCESS_TOKEN. Without a key")
	fmt.Fprintln(w, "or an address the commands run against an in-process fake gateway, and say so on stderr;")
	fmt.Fprintln(w, "an address is always the one called (health needs no key).")
}

// unknownCommand reports a command name that is none of the commands, with the nearest one when
// it looks like a slip of the fingers.
func (a *app) unknownCommand(name string) int {
	if near, ok := nearestCommand(name); ok {
		fmt.Fprintf(a.stderr, "infergate: unknown command %q: did you mean infergate %s? (run infergate help for the list)\n", name, near)
	} else {
		fmt.Fprintf(a.stderr, "infergate: unknown command %q (run infergate help for the list)\n", name)
	}
	return exitUsage
}

// exit reports how a command ended, as one line on stderr, and returns the exit status.
func (a *app) exit(ctx context.Context, cmd command, err error) int {
	var usage *usageError
	var failed exitError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &usage):
		fmt.Fprintf(a.stderr, "infergate %s: %s (see infergate %s --help)\n", cmd.name, oneLine(usage.msg), cmd.name)
		return exitUsage
	case errors.As(err, &failed):
		return int(failed)
	case ctx.Err() != nil: // only Ctrl-C cancels ctx, so the call failed because it was interrupted
		fmt.Fprintln(a.stderr, "infergate: interrupted")
		return exitInterrupted
	}
	fmt.Fprintln(a.stderr, errorLine(err))
	return exitFailed
}

// errorLine is how a failure is reported: one line, the SDK's typed message with its request id.
func errorLine(err error) string {
	return "infergate: " + oneLine(strings.TrimPrefix(err.Error(), "infergate: "))
}

// oneLine keeps an error to the one line a terminal user reads: a server's message may hold
// newlines.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// fromCommandLine turns the SDK's refusal of a value the command line gave into a wrong command
// line (exit status 2) naming the flag or argument that gave it: from maps the
// ValidationError's Field to that name. Other errors are returned as they are.
func fromCommandLine(err error, from map[string]string) error {
	var invalid *infergate.ValidationError
	if errors.As(err, &invalid) {
		if name, ok := from[invalid.Field]; ok {
			return usagef("%s: %s", name, invalid.Reason)
		}
	}
	return err
}

// usageError is a wrong command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitError ends a command with a status and nothing more to say (health reports an unhealthy
// gateway this way, having printed the report).
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// flags are the flags every command takes.
type flags struct {
	*flag.FlagSet
	json    bool
	baseURL string
	stdout  io.Writer // where help goes
}

// newFlags starts the flag set of the command name; the command adds its own flags.
func (a *app) newFlags(name string) *flags {
	f := &flags{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), stdout: a.stdout}
	f.SetOutput(io.Discard)
	f.BoolVar(&f.json, "json", false, "print JSON, for scripts")
	f.StringVar(&f.baseURL, "base-url", "", "the gateway's address (default INFERGATE_BASE_URL, else "+infergate.DefaultBaseURL+")")
	return f
}

// help prints the command's help on stdout. (The flag package's own usage output goes nowhere, so
// that a wrong flag is reported on one line.)
func (f *flags) help() {
	cmd, _ := lookup(f.Name())
	w := f.stdout
	fmt.Fprintln(w, strings.TrimSpace("usage: infergate "+cmd.name+" [flags] "+cmd.args))
	fmt.Fprintf(w, "\n%s%s.\n\n", strings.ToUpper(cmd.summary[:1]), cmd.summary[1:])
	if note, ok := helpNotes[cmd.name]; ok {
		fmt.Fprintf(w, "%s\n\n", note)
	}
	fmt.Fprintf(w, "example:\n  %s\n\nflags:\n", cmd.example)
	f.SetOutput(w)
	f.PrintDefaults()
	f.SetOutput(io.Discard)
}

// parse reads the flags wherever they stand among the arguments (infergate bids MODEL --duration 1h
// reads as well as with the flags first; after "--" everything is an argument) and checks the
// number of arguments against min and max (max < 0: no limit).
func (f *flags) parse(args []string, min, max int) ([]string, error) {
	var rest []string
	for {
		if err := f.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				f.help()
				return nil, err
			}
			return nil, &usageError{msg: err.Error()}
		}
		left := f.Args()
		if len(left) == 0 {
			break
		}
		if parsed := len(args) - len(left); parsed > 0 && args[parsed-1] == "--" {
			rest = append(rest, left...)
			break
		}
		rest = append(rest, left[0])
		args = left[1:]
	}
	if f.baseURL != "" {
		if err := checkBaseURL(f.baseURL); err != nil {
			return nil, err
		}
	}
	switch {
	case len(rest) < min:
		cmd, _ := lookup(f.Name())
		return nil, usagef("missing %s", cmd.args)
	case max >= 0 && len(rest) > max:
		return nil, usagef("too many arguments: %q", rest[max:])
	}
	return rest, nil
}

// checkBaseURL refuses, as a wrong command line, an address the SDK would refuse, by the SDK's own
// rule, before the command reads its input or connects.
func checkBaseURL(u string) error {
	_, err := infergate.NewClient(infergate.WithBaseURL(u), infergate.WithAPIKey(""), infergate.WithAccessToken(""))
	return fromCommandLine(err, map[string]string{"BaseURL": "--base-url"})
}

// connect returns the client the command talks to: the gateway at --base-url (else
// INFERGATE_BASE_URL, else the real one) when an address or INFERGATE_API_KEY is given, else an
// in-process fake; gatewaytest.Connect says which on stderr. opts go to the client, after the
// app's own.
func (a *app) connect(f *flags, opts ...infergate.Option) (*infergate.Client, func(), error) {
	getenv := a.getenv
	if f.baseURL != "" {
		getenv = func(name string) string {
			if name == "INFERGATE_BASE_URL" {
				return f.baseURL
			}
			return a.getenv(name)
		}
	}
	return gatewaytest.Connect(a.stderr, getenv, gatewaytest.WithClientOptions(a.clientOpts...), gatewaytest.WithClientOptions(opts...))
}
