//go:build unix

package crosscheck

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/infergate/infergate-go"
)

// verdict is what Steady said about one request.
type verdict struct {
	status int
	valid  string   // x-steady-request-valid
	issues []string // x-steady-error-N-*: "code path: message", including content notes
}

func (v verdict) String() string {
	return fmt.Sprintf("HTTP %d, valid=%s, issues=%q", v.status, v.valid, v.issues)
}

// steadyProxy stands between the SDK and Steady: the SDK puts every path under /api/v1, the
// OpenAPI document has none, so the proxy strips the prefix and records Steady's verdict.
type steadyProxy struct {
	mu   sync.Mutex
	last *verdict
}

func (p *steadyProxy) handler(target *url.URL) http.Handler {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.URL.Path = strings.TrimPrefix(pr.In.URL.Path, "/api/v1")
			pr.Out.URL.RawPath = ""
		},
		ModifyResponse: func(resp *http.Response) error {
			v := &verdict{status: resp.StatusCode, valid: resp.Header.Get("X-Steady-Request-Valid")}
			count, _ := strconv.Atoi(resp.Header.Get("X-Steady-Error-Count"))
			for i := 1; i <= count; i++ {
				prefix := "X-Steady-Error-" + strconv.Itoa(i) + "-"
				v.issues = append(v.issues, resp.Header.Get(prefix+"Code")+" "+resp.Header.Get(prefix+"Path")+": "+resp.Header.Get(prefix+"Message"))
			}
			p.mu.Lock()
			p.last = v
			p.mu.Unlock()
			return nil
		},
	}
}

func (p *steadyProxy) take() *verdict {
	p.mu.Lock()
	defer p.mu.Unlock()
	v := p.last
	p.last = nil
	return v
}

// startSteady runs Steady on a free loopback port. When Steady cannot run it skips the test, unless
// STEADY_REQUIRED is set (as .ci/steady.sh sets it), so that CI cannot pass without the validator.
func startSteady(t *testing.T) *url.URL {
	t.Helper()
	missing := t.Skipf
	if os.Getenv("STEADY_REQUIRED") != "" {
		missing = t.Fatalf
	}
	if _, err := exec.LookPath("node"); err != nil {
		missing("Steady needs Node.js, which is not installed; run .ci/steady.sh on a machine with node and npm")
	}
	bin := envOr("STEADY_BIN", "../.ci/steady/node_modules/.bin/steady")
	if _, err := os.Stat(bin); err != nil {
		missing("Steady not found at %s: run .ci/steady.sh, which installs @stdy/cli 0.22.x and sets STEADY_BIN", bin)
	}
	doc := envOr("OPENAPI_DOC", "../../shared/openapi/openai-openapi.yaml")
	if _, err := os.Stat(doc); err != nil {
		missing("OpenAI OpenAPI document not found at %s: set OPENAPI_DOC", doc)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	ln.Close()

	var out bytes.Buffer
	cmd := exec.Command(bin, "--host", "127.0.0.1", "-p", port, "--log-level", "summary", "--log-format", "text", "--no-color", doc)
	cmd.Stdout, cmd.Stderr = &out, &out
	// steady is a Node wrapper that starts the real binary as a child: a process group lets the
	// cleanup stop both.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting Steady: %v", err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
		// Its summary counts the documented differences as failures, so it is shown only when the
		// test itself failed.
		if t.Failed() {
			t.Logf("Steady's log:\n%s", out.String())
		}
	})
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) || cmd.ProcessState != nil {
			t.Fatalf("Steady did not start listening on %s:\n%s", addr, out.String())
		}
	}
	return &url.URL{Scheme: "http", Host: addr}
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	abs, _ := filepath.Abs(fallback)
	return abs
}

// onePixelPNG is a valid 1x1 PNG, for the inline-image case.
const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg=="

type chatCase struct {
	name   string
	req    infergate.ChatRequest
	stream bool
	// differs, when set, is the issue Steady must report because the gateway's contract
	// deliberately differs from OpenAI's there; every other request must pass clean.
	differs string
}

func chatCases(t *testing.T) []chatCase {
	png, _ := base64.StdEncoding.DecodeString(onePixelPNG)
	inline, err := infergate.ImageBytesPart(png)
	if err != nil {
		t.Fatal(err)
	}
	weather := infergate.Tool{Function: infergate.FunctionDefinition{Name: "get_weather", Description: "Current weather in a city", Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"},
	}}}
	strict := weather
	strict.Function.Strict = infergate.Ptr(true)
	bare := infergate.Tool{Function: infergate.FunctionDefinition{Name: "ping"}}
	user := []infergate.Message{infergate.UserMessage("What is the weather in Paris?")}
	withTools := func(choice infergate.ToolChoice) infergate.ChatRequest {
		return infergate.ChatRequest{Model: "llama-3.3-70b", Messages: user, Tools: []infergate.Tool{weather, bare}, ToolChoice: choice}
	}
	url := infergate.ImageURLPart("https://example.com/cat.png")
	url.ImageURL.Detail = "low"
	return []chatCase{
		{name: "text", req: infergate.ChatRequest{Model: "llama-3.3-70b", Messages: []infergate.Message{
			infergate.SystemMessage("Be brief."), infergate.UserMessage("Hello!")}}},
		{name: "named author", req: infergate.ChatRequest{Model: "m", Messages: []infergate.Message{{Role: infergate.RoleUser, Content: "hi", Name: "alice"}}}},
		{name: "image by URL", req: infergate.ChatRequest{Model: "vision", Messages: []infergate.Message{
			infergate.UserMessageParts(infergate.TextPart("What is this?"), url)}}},
		{name: "image by data URI", req: infergate.ChatRequest{Model: "vision", Messages: []infergate.Message{
			infergate.UserMessageParts(infergate.TextPart("And this?"), inline, infergate.ImageURLPart("https://example.com/dog.webp"))}}},
		{name: "tools, model decides", req: withTools(infergate.ToolChoice{})},
		{name: "tool_choice none", req: withTools(infergate.ToolChoiceNone)},
		{name: "tool_choice auto", req: withTools(infergate.ToolChoiceAuto)},
		{name: "tool_choice required", req: withTools(infergate.ToolChoiceRequired)},
		{name: "tool_choice function", req: withTools(infergate.ToolChoiceFunction("get_weather"))},
		{name: "strict tool", req: infergate.ChatRequest{Model: "m", Messages: user, Tools: []infergate.Tool{strict}}},
		{name: "all sampling fields", req: infergate.ChatRequest{Model: "m", Messages: user,
			Temperature: infergate.Ptr(0.0), TopP: infergate.Ptr(0.9), N: infergate.Ptr(2), MaxTokens: infergate.Ptr(256),
			PresencePenalty: infergate.Ptr(-2.0), FrequencyPenalty: infergate.Ptr(2.0), Stop: []string{"\n\n", "END", "###", "Q:"}}},
		{name: "stop as a one-item list", req: infergate.ChatRequest{Model: "m", Messages: user, Stop: []string{"END"}}},
		{name: "multi-turn with tool calls and results", req: infergate.ChatRequest{Model: "m", Tools: []infergate.Tool{weather}, Messages: []infergate.Message{
			infergate.SystemMessage("You can call tools."),
			infergate.UserMessage("Weather in Paris and Rome?"),
			{Role: infergate.RoleAssistant, ToolCalls: []infergate.ToolCall{
				{ID: "call_1", Type: "function", Function: infergate.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}},
				{ID: "call_2", Type: "function", Function: infergate.FunctionCall{Name: "get_weather", Arguments: `{"city":"Rome"}`}},
			}},
			infergate.ToolResultMessage("call_1", `{"temp_c":18}`),
			infergate.ToolResultMessage("call_2", `{"temp_c":24}`),
			infergate.AssistantMessage("Paris 18°C, Rome 24°C."),
			infergate.UserMessage("Thanks!"),
		}}},
		{name: "streamed", stream: true, req: withTools(infergate.ToolChoiceAuto)},
		// session_id is the gateway's own field. OpenAI's schema does not list it but allows extra
		// properties, so Steady accepts it; the gateway reads it and providers never see it.
		{name: "session_id", req: infergate.ChatRequest{Model: "m", Messages: user, SessionID: "0xabc123"}},
		// The gateway picks a model when none is named; OpenAI requires one, so Steady must flag it.
		{name: "no model (the gateway chooses)", req: infergate.ChatRequest{Messages: user}, differs: "Missing required property: model"},
	}
}

// newSteadyClient starts Steady behind the prefix-stripping proxy and returns a client of it.
func newSteadyClient(t *testing.T) (*infergate.Client, *steadyProxy, string) {
	t.Helper()
	steady := startSteady(t)
	proxy := &steadyProxy{}
	front := httptest.NewServer(proxy.handler(steady))
	t.Cleanup(front.Close)
	client, err := infergate.NewClient(infergate.WithAPIKey("sk-steady"), infergate.WithBaseURL(front.URL), infergate.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	return client, proxy, front.URL
}

// checkVerdict requires a clean verdict (valid, with not even a content note) for a request sent
// without a ValidationError, or, where differs names the gateway's deliberate difference from
// OpenAI's contract, that Steady reports exactly that.
func checkVerdict(t *testing.T, proxy *steadyProxy, sendErr error, differs string, body any) {
	t.Helper()
	var invalid *infergate.ValidationError
	if errors.As(sendErr, &invalid) {
		t.Fatalf("the SDK refused to send it: %v", sendErr)
	}
	v := proxy.take()
	if v == nil {
		t.Fatalf("Steady never saw the request: %v", sendErr)
	}
	t.Logf("Steady: %s", v)
	if differs != "" {
		if !strings.Contains(strings.Join(v.issues, "\n"), differs) {
			t.Errorf("expected Steady to report %q, the gateway's documented difference; got %s", differs, v)
		}
		return
	}
	if v.status != http.StatusOK || v.valid != "true" || len(v.issues) != 0 {
		shown, _ := json.Marshal(body)
		t.Errorf("Steady did not accept the request: %s\nrequest: %s", v, shown)
	}
}

// TestSteadyAcceptsChatRequests sends every kind of chat request the SDK builds through Steady.
func TestSteadyAcceptsChatRequests(t *testing.T) {
	client, proxy, front := newSteadyClient(t)
	t.Run("control: a malformed body is flagged", func(t *testing.T) {
		body := `{"model":"m","messages":[{"role":"user","content":"x"}],"temperature":"hot"}`
		resp, err := http.Post(front+"/api/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if v := proxy.take(); v == nil || v.valid != "false" || len(v.issues) == 0 {
			t.Fatalf("Steady let a string temperature through (%v): the checks below would prove nothing", v)
		}
	})
	for _, tc := range chatCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			checkVerdict(t, proxy, send(client, tc), tc.differs, tc.req)
		})
	}
}

func send(client *infergate.Client, tc chatCase) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if !tc.stream {
		_, err := client.Chat.Create(ctx, tc.req)
		return err
	}
	stream, err := client.Chat.Stream(ctx, tc.req)
	if err != nil {
		return err
	}
	defer stream.Close()
	for stream.Next() {
	}
	return stream.Err()
}
