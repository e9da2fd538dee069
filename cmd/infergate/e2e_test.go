package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildTool builds the tool into a temporary directory and returns its path.
func buildTool(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go") // go test puts its own toolchain first on PATH
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "infergate")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// toolCommand runs the built tool with the environment of the test but none of INFERGATE_*.
func toolCommand(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "INFERGATE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	return cmd
}

// TestBuiltBinary builds the tool and runs it as a newcomer would, with no key, and as cron and
// systemd would, with the null device for its streams (what exec gives a command whose streams are
// not set). It and TestBuiltBinaryAtATerminal are the tests that are not run in process.
func TestBuiltBinary(t *testing.T) {
	t.Parallel()
	bin := buildTool(t)
	command := func(args ...string) *exec.Cmd { return toolCommand(bin, args...) }
	const fake = "using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)\n"
	// run runs the binary with stdin (nil: the null device) and returns what it wrote and its
	// exit status.
	run := func(t *testing.T, stdin io.Reader, args ...string) (stdout, stderr string, code int) {
		t.Helper()
		cmd := command(args...)
		var out, errs strings.Builder
		cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &errs
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			code = exit.ExitCode()
		case err != nil:
			t.Fatalf("infergate %s: %v", strings.Join(args, " "), err)
		}
		return out.String(), errs.String(), code
	}

	t.Run("models from the fake", func(t *testing.T) {
		t.Parallel()
		cmd := command("models", "--json")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		stdout, err := cmd.Output()
		if err != nil {
			t.Fatalf("infergate models --json: %v\n%s", err, stderr.String())
		}
		var models []struct {
			ID        string `json:"id"`
			ModelType string `json:"modelType"`
		}
		if err := json.Unmarshal(stdout, &models); err != nil || len(models) == 0 || models[0].ID != "llama-3.3-70b" {
			t.Errorf("stdout = %s (%v), want the fake's catalogue as JSON", stdout, err)
		}
		if stderr.String() != fake {
			t.Errorf("stderr = %q, want %q", stderr.String(), fake)
		}
	})

	t.Run("speak to the null device", func(t *testing.T) {
		t.Parallel()
		cmd := command("speak", "hello")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil || stderr.String() != fake {
			t.Errorf("infergate speak hello > %s: %v\n%s", os.DevNull, err, stderr.String())
		}
	})

	t.Run("chat from the null device", func(t *testing.T) {
		t.Parallel()
		cmd := command("chat")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		want := "infergate chat: give a message, as arguments or on stdin (see infergate chat --help)\n"
		if !errors.As(err, &exit) || exit.ExitCode() != exitUsage || stderr.String() != want {
			t.Errorf("infergate chat < %s: %v\n%s; want exit status %d and %q", os.DevNull, err, stderr.String(), exitUsage, want)
		}
	})
	t.Run("transcribe to a .vtt file", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		audio, out := filepath.Join(dir, "x.wav"), filepath.Join(dir, "out.vtt")
		if err := os.WriteFile(audio, []byte("RIFF0000WAVE"), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := command("transcribe", audio, "-o", out)
		if output, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("infergate transcribe x.wav -o out.vtt: %v\n%s", err, output)
		}
		if written, err := os.ReadFile(out); err != nil || !strings.HasPrefix(string(written), "WEBVTT\n") {
			t.Errorf("out.vtt holds %q (%v), want WebVTT subtitles", written, err)
		}
	})

	t.Run("embed --json", func(t *testing.T) {
		t.Parallel()
		stdout, stderr, code := run(t, nil, "embed", "--json", "one", "two")
		var got struct {
			Vectors []embeddedText `json:"vectors"`
		}
		if err := json.Unmarshal([]byte(stdout), &got); err != nil || code != exitOK || len(got.Vectors) != 2 ||
			len(got.Vectors[0].Embedding) == 0 || strings.Count(stdout, "\n") != 12 {
			t.Errorf("infergate embed --json one two = %d, %q (%v)\n%s; want two vectors, a line each", code, stdout, err, stderr)
		}
		stdout, _, code = run(t, nil, "embed", "one", "two")
		if code != exitOK || !strings.HasPrefix(stdout, "TEXT ") || strings.Count(stdout, "\n") != 4 {
			t.Errorf("infergate embed one two = %d, %q; want a table", code, stdout)
		}
	})

	t.Run("speak --json is refused", func(t *testing.T) {
		t.Parallel()
		stdout, stderr, code := run(t, nil, "speak", "--json", "hello")
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, "--json is not taken") {
			t.Errorf("infergate speak --json hello = %d, %q, %q; want exit status 2 and why", code, stdout, stderr)
		}
	})

	t.Run("one JSON casing", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		audio := filepath.Join(dir, "x.wav")
		if err := os.WriteFile(audio, []byte("RIFF0000WAVE"), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"models"}, {"bids", "llama-3.3-70b"}, {"chat", "hi"}, {"transcribe", audio}, {"embed", "hi"},
			{"balance"}, {"usage"}, {"health"},
		} {
			stdout, stderr, code := run(t, nil, append(args, "--json")...)
			var doc any
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != exitOK {
				t.Errorf("infergate %s --json = %d, %q (%v)\n%s", args[0], code, stdout, err, stderr)
				continue
			}
			if key, ok := notSnakeCase(doc); ok {
				t.Errorf("infergate %s --json has the key %q, want the wire's snake_case:\n%s", args[0], key, stdout)
			}
			if args[0] == "bids" && strings.Contains(stdout, `"rating"`) {
				t.Errorf("bids --json of marketplace bids, which carry no rating, shows one:\n%s", stdout)
			}
		}
	})

	t.Run("an empty file is named", func(t *testing.T) {
		t.Parallel()
		empty := filepath.Join(t.TempDir(), "empty.wav")
		if err := os.WriteFile(empty, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := run(t, nil, "transcribe", empty)
		if want := "infergate: " + empty + ": invalid File: is empty"; code != exitFailed || !strings.Contains(stderr, want) {
			t.Errorf("infergate transcribe empty.wav = %d, %q; want exit status 1 and %q", code, stderr, want)
		}
	})
}

// notSnakeCase finds an object key in a JSON document that is not lower snake_case.
func notSnakeCase(doc any) (string, bool) {
	switch v := doc.(type) {
	case map[string]any:
		for key, value := range v {
			if strings.ToLower(key) != key || strings.Contains(key, "-") {
				return key, true
			}
			if key, ok := notSnakeCase(value); ok {
				return key, true
			}
		}
	case []any:
		for _, value := range v {
			if key, ok := notSnakeCase(value); ok {
				return key, true
			}
		}
	}
	return "", false
}
