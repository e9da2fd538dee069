package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/infergate/infergate-go/gatewaytest"
)

// TestBuiltBinaryAtATerminal runs the built tool with a pseudo-terminal for stdin, as a person
// types into it, and a pipe for stdout, as a script reads it.
func TestBuiltBinaryAtATerminal(t *testing.T) {
	t.Parallel()
	bin := buildTool(t)

	t.Run("chat --json reads one message, with no prompt", func(t *testing.T) {
		t.Parallel()
		controller, terminal := openPTY(t)
		cmd := toolCommand(bin, "chat", "--json")
		var stdout, stderr strings.Builder
		cmd.Stdin, cmd.Stdout, cmd.Stderr = terminal, &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(controller, "What is up?\n\x04"); err != nil { // a line, then Ctrl-D
			t.Fatal(err)
		}
		err := cmd.Wait()
		var completion struct {
			Object string `json:"object"`
		}
		if jsonErr := json.Unmarshal([]byte(stdout.String()), &completion); err != nil || jsonErr != nil ||
			completion.Object != "chat.completion" || strings.Contains(stderr.String(), "conversation") {
			t.Errorf("infergate chat --json at a terminal: %v; stdout %q (%v); stderr %q; want the completion alone",
				err, stdout.String(), jsonErr, stderr.String())
		}
	})

	t.Run("Ctrl-C cancels the answer, not the conversation", func(t *testing.T) {
		t.Parallel()
		srv := newStallingChat(t)
		controller, terminal := openPTY(t)
		cmd := toolCommand(bin, "chat")
		cmd.Env = append(cmd.Env, "INFERGATE_BASE_URL="+srv.url, "INFERGATE_API_KEY="+gatewaytest.DefaultAPIKey)
		var stderr strings.Builder
		cmd.Stdin, cmd.Stderr = terminal, &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill() }) // when the test fails before the tool ends
		answers := bufio.NewReader(stdout)
		if _, err := io.WriteString(controller, "first\n"); err != nil {
			t.Fatal(err)
		}
		var begun []byte
		for !strings.HasSuffix(string(begun), "Hello") {
			b, err := answers.ReadByte()
			if err != nil {
				t.Fatalf("stdout %q then %v, want the first answer", begun, err)
			}
			begun = append(begun, b)
		}
		if err := cmd.Process.Signal(os.Interrupt); err != nil { // Ctrl-C while it streams
			t.Fatal(err)
		}
		<-srv.disconnected
		if _, err := io.WriteString(controller, "second\n\x04"); err != nil {
			t.Fatal(err)
		}
		rest, _ := io.ReadAll(answers)
		err = cmd.Wait()
		if err != nil || string(begun)+string(rest) != "Hello\nHello\n" || !strings.Contains(stderr.String(), "(interrupted") {
			t.Errorf("conversation interrupted once: %v; stdout %q; stderr %q; want it to go on to the second answer",
				err, rest, stderr.String())
		}
		if bodies := srv.bodies(); len(bodies) != 2 || !strings.Contains(bodies[1], "second") {
			t.Errorf("requests %q, want the second line sent after the interrupted answer", bodies)
		}
	})
}
