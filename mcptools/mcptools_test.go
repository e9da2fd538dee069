package mcptools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/mcptools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const objectSchema = `{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false}`

// newServer is an MCP server of the official SDK; its logger is quiet, since some tests give tools
// names it warns about.
func newServer(pageSize int) *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "1.0.0"},
		&mcp.ServerOptions{PageSize: pageSize, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// addTool adds a tool with objectSchema whose handler is fn.
func addTool(s *mcp.Server, name string, fn func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error)) {
	s.AddTool(&mcp.Tool{Name: name, Description: "tool " + name, InputSchema: json.RawMessage(objectSchema)}, fn)
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// connect runs server on one end of an in-memory pipe and returns the client session on the other.
func connect(t *testing.T, server *mcp.Server) (*mcp.ClientSession, *mcp.ServerSession) {
	t.Helper()
	ctx := context.Background()
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0.0"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs, ss
}

func fromSession(t *testing.T, cs *mcp.ClientSession, opts ...mcptools.Option) map[string]*infergate.FuncTool {
	t.Helper()
	tools, err := mcptools.FromSession(context.Background(), cs, opts...)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*infergate.FuncTool{}
	for _, tool := range tools {
		byName[tool.Name()] = tool
	}
	if len(byName) != len(tools) {
		t.Fatalf("two tools share a name: %v", byName)
	}
	return byName
}

// TestFromSessionPrefixes: two servers with a "search" tool share a loop under their prefixes, and
// each call reaches its own server; without prefixes the loop refuses the clash.
func TestFromSessionPrefixes(t *testing.T) {
	t.Parallel()
	sessions := map[string]*mcp.ClientSession{}
	for _, name := range []string{"github", "jira"} {
		s := newServer(0)
		addTool(s, "search", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult(name + " results for " + string(req.Params.Arguments)), nil
		})
		sessions[name], _ = connect(t, s)
	}
	github := fromSession(t, sessions["github"], mcptools.WithPrefix("github_"))
	jira := fromSession(t, sessions["jira"], mcptools.WithPrefix("jira_"))
	for name, tool := range map[string]*infergate.FuncTool{"github": github["github_search"], "jira": jira["jira_search"]} {
		if tool == nil {
			t.Fatalf("%s: tools %v", name, github)
		}
		if out, err := tool.Call(context.Background(), `{"q":"bug"}`); err != nil || out != name+` results for {"q":"bug"}` {
			t.Errorf("%s: Call = %q, %v", name, out, err)
		}
		if def := tool.Definition(); def.Function.Description != "tool search" {
			t.Errorf("%s: definition %+v", name, def)
		}
	}
	unprefixed := append(slicesOf(fromSession(t, sessions["github"])), slicesOf(fromSession(t, sessions["jira"]))...)
	gw := gatewaytest.New(t)
	_, err := gw.Client().Chat.RunTools(context.Background(), hello(), infergate.ToolLoop{Tools: unprefixed}).Wait()
	var v *infergate.ValidationError
	if !errors.As(err, &v) || !strings.Contains(err.Error(), `"search" is given twice`) {
		t.Errorf("two unprefixed search tools: %v, want a ValidationError", err)
	}
}

func slicesOf(m map[string]*infergate.FuncTool) []*infergate.FuncTool {
	var out []*infergate.FuncTool
	for _, tool := range m {
		out = append(out, tool)
	}
	return out
}

func hello() infergate.ChatRequest {
	return infergate.ChatRequest{Model: "llama-3.3-70b", Messages: []infergate.Message{infergate.UserMessage("hi")}}
}

// TestFromSessionPagesAndFilter: every page is listed, in the server's order, and the filter
// drops what it refuses.
func TestFromSessionPagesAndFilter(t *testing.T) {
	t.Parallel()
	s := newServer(2)
	var want []string
	for i := range 7 {
		name := fmt.Sprintf("tool_%d", i)
		want = append(want, name)
		addTool(s, name, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return textResult(name), nil })
	}
	cs, _ := connect(t, s)
	page, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(page.Tools) != 2 || page.NextCursor == "" {
		t.Fatalf("the server's first page holds %d tools (cursor %q, %v): the test needs several pages", len(page.Tools), page.NextCursor, err)
	}
	tools, err := mcptools.FromSession(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range tools {
		got = append(got, tool.Name())
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("tools %v, want %v", got, want)
	}
	odd, err := mcptools.FromSession(context.Background(), cs, mcptools.WithFilter(func(tool *mcp.Tool) bool {
		return strings.HasSuffix(tool.Name, "1") || strings.HasSuffix(tool.Name, "6")
	}))
	if err != nil || len(odd) != 2 || odd[0].Name() != "tool_1" || odd[1].Name() != "tool_6" {
		t.Fatalf("filtered: %v, %v", odd, err)
	}
	if out, err := odd[1].Call(context.Background(), `{}`); err != nil || out != "tool_6" {
		t.Errorf("the filtered tool calls %q, %v", out, err)
	}
	if _, err := mcptools.FromSession(context.Background(), nil); err == nil {
		t.Error("a nil session was accepted")
	}
}

// TestFromSessionNames: MCP names that are not valid function names get valid, unique ones that
// still call the right MCP tool, and never take a valid name from another tool.
func TestFromSessionNames(t *testing.T) {
	t.Parallel()
	s := newServer(0)
	long := strings.Repeat("x", 70)
	mcpNames := []string{"fs.read", "fs_read", "read file", "météo", long, long + "y", "a/b", "a_b"}
	for _, name := range mcpNames {
		addTool(s, name, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return textResult(name), nil })
	}
	cs, _ := connect(t, s)
	tools, err := mcptools.FromSession(context.Background(), cs, mcptools.WithPrefix("my_"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != len(mcpNames) {
		t.Fatalf("%d tools, want %d", len(tools), len(mcpNames))
	}
	seen := map[string]bool{}
	nameOf := map[string]string{} // MCP name -> function name
	for _, tool := range tools {
		name := tool.Name()
		req := hello()
		req.Tools = []infergate.Tool{tool.Definition()}
		if err := req.Validate(); err != nil || len(name) > 64 || seen[name] {
			t.Errorf("name %q: valid %v, seen before %v", name, err, seen[name])
		}
		seen[name] = true
		out, err := tool.Call(context.Background(), `{}`)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		nameOf[out] = name
	}
	if len(nameOf) != len(mcpNames) {
		t.Errorf("the tools reached %v, want each of %q once", nameOf, mcpNames)
	}
	// Valid names stay as they are; the others keep their readable part.
	for mcpName, want := range map[string]string{"fs_read": "my_fs_read", "a_b": "my_a_b", "read file": "my_read_file", "météo": "my_m_t_o"} {
		if nameOf[mcpName] != want {
			t.Errorf("%q is called %q, want %q", mcpName, nameOf[mcpName], want)
		}
	}
	for _, mcpName := range []string{"fs.read", "a/b", long} {
		if got := nameOf[mcpName]; !strings.HasPrefix(got, "my_"+invalidToUnderscore(mcpName)[:min(len(mcpName), 50)]) {
			t.Errorf("%q is called %q", mcpName, got)
		}
	}
}

func invalidToUnderscore(s string) string {
	return strings.NewReplacer(".", "_", "/", "_").Replace(s)
}

// TestFromSessionResults: text is joined, structured content is JSON when there is no content,
// images and resources are described, and IsError is a failed call whose text the model reads.
func TestFromSessionResults(t *testing.T) {
	t.Parallel()
	s := newServer(0)
	addTool(s, "structured", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{StructuredContent: map[string]any{"temp": 21, "sky": "clear"}}, nil
	})
	addTool(s, "mixed", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "first"},
			&mcp.ImageContent{MIMEType: "image/png", Data: []byte("12345")},
			&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("123")},
			&mcp.ResourceLink{URI: "file:///r.txt", Name: "r.txt", MIMEType: "text/plain", Description: "a report"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///n.md", MIMEType: "text/markdown", Text: "# notes"}},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///b.bin", MIMEType: "application/octet-stream", Blob: []byte("xy")}},
			&mcp.TextContent{Text: "last"},
		}, StructuredContent: map[string]any{"ignored": true}}, nil
	})
	addTool(s, "fails", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "repository not found"}}}, nil
	})
	addTool(s, "protocol_error", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("backend unavailable")
	})
	cs, _ := connect(t, s)
	tools := fromSession(t, cs)
	ctx := context.Background()
	if out, err := tools["structured"].Call(ctx, `{}`); err != nil || out != `{"sky":"clear","temp":21}` {
		t.Errorf("structured: %q, %v", out, err)
	}
	wantMixed := strings.Join([]string{
		"first",
		"[image: image/png, 5 bytes]",
		"[audio: audio/wav, 3 bytes]",
		`[resource link: file:///r.txt, "r.txt", text/plain: a report]`,
		"[resource file:///n.md, text/markdown]\n# notes",
		"[resource file:///b.bin: application/octet-stream, 2 bytes]",
		"last",
	}, "\n")
	if out, err := tools["mixed"].Call(ctx, `{}`); err != nil || out != wantMixed {
		t.Errorf("mixed:\n%s\n%v\nwant\n%s", out, err, wantMixed)
	}
	_, err := tools["fails"].Call(ctx, `{}`)
	var te *infergate.ToolError
	var re *mcptools.ResultError
	if !errors.As(err, &te) || te.Stage != infergate.ToolStageRun || !errors.As(err, &re) || !re.Result.IsError ||
		te.Feedback() != "fails failed: repository not found" {
		t.Errorf("IsError: %v", err)
	}
	if _, err := tools["protocol_error"].Call(ctx, `{}`); !errors.As(err, &te) || !strings.Contains(te.Feedback(), "backend unavailable") {
		t.Errorf("a handler error: %v", err)
	}
	if _, err := tools["fails"].Call(ctx, `{"q":1}`); !errors.As(err, &te) || te.Feedback() != `Invalid arguments for fails: "q" must be a string, not a number.` {
		t.Errorf("the server's schema is not checked before the call: %v", err)
	}
}

// TestFromSessionServerClosesMidCall: a server whose connection drops during a call (its process
// died, say) makes a failed call, not a hang or a panic; so does every later call.
func TestFromSessionServerClosesMidCall(t *testing.T) {
	t.Parallel()
	s := newServer(0)
	release := make(chan struct{})
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	dropping := &droppingTransport{Transport: serverEnd}
	addTool(s, "dies", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		dropping.conn.Close()
		select {
		case <-ctx.Done():
		case <-release:
		}
		return textResult("never delivered"), nil
	})
	ss, err := s.Connect(context.Background(), dropping, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0.0"}, nil).Connect(context.Background(), clientEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		close(release)
		cs.Close()
		ss.Wait()
	}()
	tools := fromSession(t, cs)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = tools["dies"].Call(ctx, `{}`)
	var te *infergate.ToolError
	if !errors.As(err, &te) || te.Stage != infergate.ToolStageRun || ctx.Err() != nil {
		t.Fatalf("a call whose server went away: %v (context: %v)", err, ctx.Err())
	}
	if _, err := tools["dies"].Call(ctx, `{}`); !errors.As(err, &te) || ctx.Err() != nil {
		t.Errorf("a call on the broken session: %v", err)
	}
}

// droppingTransport is the server's end of a connection that the test can drop.
type droppingTransport struct {
	mcp.Transport
	conn mcp.Connection
}

func (d *droppingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := d.Transport.Connect(ctx)
	d.conn = conn
	return conn, err
}

// TestRunToolsMCPTimeout: a tool that blocks past ToolTimeout is cancelled on the server too, the
// model reads that it timed out, and the loop answers. The bound leaves the call time to reach the
// server on a loaded machine: one cancelled before it arrives has no handler to cancel.
func TestRunToolsMCPTimeout(t *testing.T) {
	t.Parallel()
	s := newServer(0)
	var cancelled atomic.Bool
	addTool(s, "slow", func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		cancelled.Store(true)
		return nil, ctx.Err()
	})
	cs, _ := connect(t, s)
	gw := gatewaytest.New(t)
	gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{ID: "s", Name: "slow", Arguments: `{}`}}},
		gatewaytest.Reply{Respond: echoResults})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := gw.Client().Chat.RunTools(ctx, hello(), infergate.ToolLoop{Tools: slicesOf(fromSession(t, cs)), ToolTimeout: 250 * time.Millisecond}).Wait()
	if err != nil {
		t.Fatal(err)
	}
	if want := "s=slow failed: it did not finish within 250ms."; res.Answer.Text() != want {
		t.Errorf("answer %q, want %q", res.Answer.Text(), want)
	}
	for !cancelled.Load() && ctx.Err() == nil { // the cancellation notice reaches the server asynchronously
		time.Sleep(time.Millisecond)
	}
	if !cancelled.Load() {
		t.Error("the server's handler was never cancelled")
	}
}

// echoResults is the fake model's answer: the tool results it was sent, by call id.
func echoResults(conversation []gatewaytest.Turn) gatewaytest.Reply {
	var results []string
	for _, turn := range conversation {
		if turn.Role == "tool" {
			results = append(results, turn.ToolCallID+"="+turn.Content)
		}
	}
	return gatewaytest.Reply{Content: strings.Join(results, "; ")}
}

// TestRunToolsWithMCPServer: a whole tool loop on the fake gateway, whose model calls a tool of an
// MCP server and answers from its result.
func TestRunToolsWithMCPServer(t *testing.T) {
	t.Parallel()
	type forecastIn struct {
		City string `json:"city" jsonschema:"the city"`
	}
	type forecastOut struct {
		City string `json:"city"`
		Sky  string `json:"sky"`
	}
	s := newServer(0)
	mcp.AddTool(s, &mcp.Tool{Name: "forecast", Description: "Tomorrow's weather."},
		func(_ context.Context, _ *mcp.CallToolRequest, in forecastIn) (*mcp.CallToolResult, forecastOut, error) {
			return nil, forecastOut{City: in.City, Sky: "rain"}, nil
		})
	cs, _ := connect(t, s)
	tools, err := mcptools.FromSession(context.Background(), cs, mcptools.WithPrefix("weather_"))
	if err != nil {
		t.Fatal(err)
	}
	gw := gatewaytest.New(t)
	gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{ID: "f", Name: "weather_forecast", Arguments: `{"city":"Bergen"}`}}},
		gatewaytest.Reply{Respond: echoResults})
	res, err := gw.Client().Chat.RunTools(context.Background(), hello(), infergate.ToolLoop{Tools: tools}).Wait()
	if err != nil {
		t.Fatal(err)
	}
	if want := `f={"city":"Bergen","sky":"rain"}`; res.Answer.Text() != want {
		t.Errorf("answer %q, want %q", res.Answer.Text(), want)
	}
	first := gw.Requests()[0]
	sent, _ := json.Marshal(first.JSON["tools"])
	if !strings.Contains(string(sent), `"name":"weather_forecast"`) || !strings.Contains(string(sent), `"required":["city"]`) {
		t.Errorf("tools sent to the model: %s", sent)
	}
}

// TestFromSessionSchemaCycle: a server's tool whose schema applies itself to the same value would
// crash the program on its first call (a stack overflow no recover catches): FromSession fails,
// naming the tool and the cycle, and WithFilter can leave the tool out to use the others.
func TestFromSessionSchemaCycle(t *testing.T) {
	t.Parallel()
	s := newServer(0)
	addTool(s, "fine", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult("fine"), nil
	})
	s.AddTool(&mcp.Tool{Name: "loops", InputSchema: json.RawMessage(`{"type":"object","allOf":[{"$ref":"#"}]}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult("never"), nil
		})
	cs, _ := connect(t, s)
	tools, err := mcptools.FromSession(context.Background(), cs)
	var v *infergate.ValidationError
	if !errors.As(err, &v) || !strings.Contains(err.Error(), `tool "loops"`) || !strings.Contains(err.Error(), "# → #/allOf/0 → #") {
		t.Fatalf("FromSession: %d tools, %v; want an error naming the tool and its cycle", len(tools), err)
	}
	tools, err = mcptools.FromSession(context.Background(), cs, mcptools.WithFilter(func(tool *mcp.Tool) bool { return tool.Name != "loops" }))
	if err != nil || len(tools) != 1 || tools[0].Name() != "fine" {
		t.Fatalf("without the tool: %v, %v", tools, err)
	}
}

// TestRunToolsMCPCostlySchema: a server's tool whose 2 KB schema would take minutes to check
// arguments against fails the call, promptly, as the tool's failure the model reads; the call
// never reaches the server, and the loop answers.
func TestRunToolsMCPCostlySchema(t *testing.T) {
	t.Parallel()
	var schema strings.Builder
	schema.WriteString(`{"type":"object","allOf":[{"$ref":"#/$defs/d0"}],"$defs":{`)
	for i := range 27 {
		fmt.Fprintf(&schema, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	schema.WriteString(`"d27":{"type":"object"}}}`)
	s := newServer(0)
	var called atomic.Bool
	s.AddTool(&mcp.Tool{Name: "costly", InputSchema: json.RawMessage(schema.String())},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			called.Store(true)
			return textResult("called"), nil
		})
	cs, _ := connect(t, s)
	gw := gatewaytest.New(t)
	gw.Enqueue(gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{ID: "c", Name: "costly", Arguments: `{}`}}},
		gatewaytest.Reply{Respond: echoResults})
	res, err := gw.Client().Chat.RunTools(context.Background(), hello(), infergate.ToolLoop{
		Tools: slicesOf(fromSession(t, cs)), ToolTimeout: 500 * time.Millisecond,
	}).Wait()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Answer.Text(), "c=Invalid arguments for costly: they could not be checked") || called.Load() {
		t.Errorf("answer %q (the server was called: %v)", res.Answer.Text(), called.Load())
	}
}
