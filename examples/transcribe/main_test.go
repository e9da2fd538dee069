package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

const wantSRT = "1\n00:00:00,000 --> 00:00:00,600\nThis is a test.\n\n2\n00:00:00,600 --> 00:00:01,000\nOnly a test.\n\n"

// TestOutput runs what main runs, against the fake gateway, on the generated tone.
func TestOutput(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("INFERGATE_API_KEY", "")
	t.Setenv("INFERGATE_BASE_URL", "")
	var out strings.Builder
	client, stop, err := gatewaytest.Connect(&out, os.Getenv, fake...)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := run(context.Background(), &out, client); err != nil {
		t.Fatal(err)
	}
	srts, _ := filepath.Glob(filepath.Join(tmp, "transcribe*", "tone.srt"))
	if len(srts) != 1 {
		t.Fatalf("found %v, want one tone.srt under %s", srts, tmp)
	}
	want := `using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)
0.0s-0.6s This is a test.
0.6s-1.0s Only a test.
wrote ` + srts[0] + "\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if got, _ := os.ReadFile(srts[0]); string(got) != wantSRT {
		t.Errorf("tone.srt = %q, want %q", got, wantSRT)
	}
}

// TestSubtitlesNextToTheAudio transcribes a given file and checks the upload and the .srt beside it.
func TestSubtitlesNextToTheAudio(t *testing.T) {
	dir := t.TempDir()
	audio := filepath.Join(dir, "memo.wav")
	if err := writeTone(audio); err != nil {
		t.Fatal(err)
	}
	srv := gatewaytest.New(t, fake...)
	if err := run(context.Background(), new(strings.Builder), srv.Client(), audio); err != nil {
		t.Fatal(err)
	}
	req, _ := srv.LastRequest()
	if req.File == nil || req.File.Filename != "memo.wav" || req.File.Size != 44+2*16000 {
		t.Errorf("uploaded %+v, want memo.wav of 32044 bytes", req.File)
	}
	if req.Form["response_format"] != "srt" {
		t.Errorf("form = %v, want response_format srt", req.Form)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "memo.srt")); err != nil || string(got) != wantSRT {
		t.Errorf("memo.srt = %q, %v; want %q", got, err, wantSRT)
	}
}

func TestRunRefusesWhatItCannotSend(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.flac")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		want func(error) bool
	}{
		{"empty file", empty, func(err error) bool {
			var v *infergate.ValidationError
			return errors.As(err, &v)
		}},
		{"missing file", filepath.Join(dir, "none.wav"), func(err error) bool { return errors.Is(err, os.ErrNotExist) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := gatewaytest.New(t, fake...)
			err := run(context.Background(), new(strings.Builder), srv.Client(), tt.path)
			if !tt.want(err) {
				t.Errorf("err = %v", err)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("sent %d requests, want none", n)
			}
		})
	}
}
