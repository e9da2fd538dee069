// Package mcptools puts the tools of MCP (Model Context Protocol) servers into the infergate tool
// loop: FromSession lists the tools of a connected server and returns them as *infergate.FuncTool
// values, for ToolLoop.Tools, whose calls go to the server.
//
// It is a module of its own (github.com/infergate/infergate-go/mcptools), built on the official
// github.com/modelcontextprotocol/go-sdk, so that programs that do not use MCP do not depend on it.
package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	infergate "github.com/infergate/infergate-go"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Option configures FromSession.
type Option func(*options)

type options struct {
	prefix string
	keep   func(*mcp.Tool) bool
}

// WithPrefix puts prefix before the name of every tool, as the model sees it, so that the tools of
// several servers can share a loop: two servers with a "search" tool, given the prefixes "github_"
// and "jira_", give "github_search" and "jira_search". The MCP server is still called with the
// tool's own name.
func WithPrefix(prefix string) Option { return func(o *options) { o.prefix = prefix } }

// WithFilter keeps only the tools for which keep returns true: the tools it drops are never shown
// to the model.
func WithFilter(keep func(*mcp.Tool) bool) Option { return func(o *options) { o.keep = keep } }

// FromSession lists every tool of the session's server (all pages) and returns one tool for each,
// in the server's order, whose calls go to the server through session.CallTool.
//
// Each tool's schema is the server's inputSchema, sent to the model as it is; arguments are
// checked against it before the call when the validator can apply it (see
// infergate.NewToolFromSchema). A name the model cannot take as a function name ("fs.read", one
// with spaces, one over 64 characters, one already taken) is given a valid one, unique within the
// returned tools: invalid characters become '_', and a short hash of the MCP name is added when
// needed. The description is the server's (or the tool's title when it has none). A tool whose
// input schema is not a JSON object, or one that applies itself to the same value (which
// infergate.NewToolFromSchema refuses: no check against it could end), makes FromSession fail with
// an error that names the tool; WithFilter can leave it out. The whole listing fails rather than
// the tool being dropped, so that the tools a program hands the model are never silently fewer
// than the server announced. Checking a call's arguments is bounded as NewToolFromSchema says: a
// schema too costly to check them against fails that call, as the tool's failure the model reads.
//
// What a call returns is sent to the model as text: the text contents joined by newlines, with
// images, audio and resources described rather than dropped (an embedded text resource is
// included); the structured content as JSON when there is no content. A result the server marks
// as an error is a failed call (a *ResultError inside the *infergate.ToolError) whose text goes
// back to the model. A broken session or a call that outlives its context is a failed call too:
// the call's context bounds it (see infergate.ToolLoop.ToolTimeout), and cancelling it cancels the
// call on the server.
//
// A listing the server cannot bring to an end fails with a *PaginationError: a next-page cursor
// the listing was already given (the pages would go round for ever), or more than 1000 pages.
func FromSession(ctx context.Context, session *mcp.ClientSession, opts ...Option) ([]*infergate.FuncTool, error) {
	if session == nil {
		return nil, &infergate.ValidationError{Field: "session", Reason: "is nil"}
	}
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	listed, err := listTools(ctx, session, o.keep)
	if err != nil {
		return nil, err
	}
	names := functionNames(o.prefix, listed)
	tools := make([]*infergate.FuncTool, len(listed))
	for i, t := range listed {
		schema, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("mcptools: tool %q: its input schema: %w", t.Name, err)
		}
		tools[i], err = infergate.NewToolFromSchema(names[i], description(t), schema, caller(session, t.Name))
		if err != nil {
			return nil, fmt.Errorf("mcptools: tool %q: %w", t.Name, err)
		}
	}
	return tools, nil
}

func description(t *mcp.Tool) string {
	if t.Description == "" && t.Annotations != nil {
		return t.Annotations.Title
	}
	return t.Description
}

// caller returns the function that calls the MCP tool name.
func caller(session *mcp.ClientSession, name string) func(context.Context, json.RawMessage) (string, error) {
	return func(ctx context.Context, arguments json.RawMessage) (string, error) {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: arguments})
		if err != nil {
			return "", err
		}
		if res == nil {
			return "", errors.New("the server sent no result")
		}
		text := resultText(res)
		if res.IsError {
			return "", &ResultError{Result: res, text: text}
		}
		return text, nil
	}
}

// ResultError is a call whose result the server marked as an error (IsError). Its text, sent to the
// model, is the result's content as FromSession renders it.
type ResultError struct {
	Result *mcp.CallToolResult // the server's result, whole: its content, structured content and metadata
	text   string
}

// Error returns the result's text, or says that the server gave none.
func (e *ResultError) Error() string {
	if e.text == "" {
		return "the tool reported an error without a message"
	}
	return e.text
}
