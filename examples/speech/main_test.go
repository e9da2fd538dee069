package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// TestOutput runs what main runs, against the fake gateway, for each format.
func TestOutput(t *testing.T) {
	t.Setenv("INFERGATE_API_KEY", "")
	t.Setenv("INFERGATE_BASE_URL", "")
	for _, format := range []string{"mp3", "opus", "aac", "flac", "wav", "pcm"} {
		var out strings.Builder
		client, stop, err := gatewaytest.Connect(&out, os.Getenv)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "hello."+format)
		err = run(context.Background(), &out, client, path)
		stop()
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		if !bytes.Equal(got, gatewaytest.SpeechAudio(format)) || !strings.Contains(out.String(), "wrote "+path+" ("+format+", ") {
			t.Errorf("%s: output %q, file of %d bytes", format, out.String(), len(got))
		}
	}
}

func TestRunReportsFailures(t *testing.T) {
	srv := gatewaytest.New(t)
	path := filepath.Join(t.TempDir(), "x.mp3")
	srv.FailNext(1, gatewaytest.OpenAIErrorReply(502, gatewaytest.OpenAIErrorFields{Message: "provider failed", Type: "proxy_error"}))
	if err := run(context.Background(), &strings.Builder{}, srv.Client(infergate.WithMaxRetries(0)), path); !errors.Is(err, infergate.ErrServer) {
		t.Errorf("err = %v, want ErrServer", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a file was written: %v", err)
	}
	var verr *infergate.ValidationError
	if err := run(context.Background(), &strings.Builder{}, srv.Client(), filepath.Join(t.TempDir(), "x.ogg")); !errors.As(err, &verr) {
		t.Errorf("err = %v, want a ValidationError for .ogg", err)
	}
}
