package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/infergate/infergate-go/gatewaytest"
)

// runOnNull runs a command as cron and systemd run it: stdin and stdout on the null device, and
// which streams are terminals found out from them as main does.
func runOnNull(t *testing.T, c *cli, args ...string) result {
	t.Helper()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var stderr syncBuffer
	a := &app{
		stdin: null, stdout: null, stderr: &stderr,
		getenv: func(name string) string { return c.env[name] },
		now:    func() time.Time { return gatewaytest.FixedTime() },
		term:   terminalsOf(null, null, null),
	}
	code := a.run(context.Background(), args)
	return result{stderr: stderr.String(), code: code}
}

// TestSpeakToTheNullDevice: speech written to /dev/null is written, not refused as if stdout
// were a terminal.
func TestSpeakToTheNullDevice(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := runOnNull(t, c, "speak", "hello")
	if r.code != exitOK {
		t.Fatalf("speak hello > %s = %+v, want the audio written", os.DevNull, r)
	}
	if last, ok := c.srv.LastRequest(); !ok || last.Path != "/api/v1/audio/speech" {
		t.Errorf("last request = %+v, want the speech", last)
	}
}

// TestChatFromTheNullDevice: chat with stdin on /dev/null has no message (an empty stdin), and
// says so, instead of starting a conversation.
func TestChatFromTheNullDevice(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := runOnNull(t, c, "chat")
	want := "infergate chat: give a message, as arguments or on stdin (see infergate chat --help)\n"
	if r.code != exitUsage || r.stderr != want {
		t.Errorf("chat < %s = %+v, want exit status %d and %q", os.DevNull, r, exitUsage, want)
	}
	if n := len(c.srv.Requests()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}
