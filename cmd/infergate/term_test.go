package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIsTerminalNotForFiles: the null device, which cron and systemd give a command for its
// streams, is a character device but no terminal; nor are a file or a pipe.
func TestIsTerminalNotForFiles(t *testing.T) {
	t.Parallel()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for name, f := range map[string]*os.File{os.DevNull: null, "a file": file, "a pipe's reader": r, "a pipe's writer": w} {
		if isTerminal(f) {
			t.Errorf("%s is taken for a terminal", name)
		}
	}
	if got := terminalsOf(null, null, null); got != (terminals{}) {
		t.Errorf("terminalsOf(%s) = %+v, want none", os.DevNull, got)
	}
}
