package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuiltBinary builds the tool and runs it as a newcomer would, with no key: models --json
// answers from the in-process fake, and says so on stderr. It is the one test that is not run in
// process.
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
	cmd := exec.Command(bin, "models", "--json")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "INFERGATE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
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
	if want := "using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)\n"; stderr.String() != want {
		t.Errorf("stderr = %q, want %q", stderr.String(), want)
	}
}
