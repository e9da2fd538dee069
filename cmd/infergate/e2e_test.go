package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuiltBinary builds the tool and runs it as a newcomer would, with no key, and as cron and
// systemd would, with the null device for its streams (what exec gives a command whose streams are
// not set). It is the one test that is not run in process.
func TestBuiltBinary(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go") // go test puts its own toolchain first on PATH
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "infergate")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	command := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...)
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "INFERGATE_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		return cmd
	}
	const fake = "using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)\n"

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
}
