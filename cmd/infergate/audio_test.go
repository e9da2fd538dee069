package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// clip writes a small audio file for transcribe to upload and returns its path.
func clip(t *testing.T, size int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "meeting.wav")
	if err := os.WriteFile(path, bytes.Repeat([]byte{1}, size), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTranscribe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		format string // the response_format sent
	}{
		{"transcribe", []string{}, "text"},
		{"transcribe-srt", []string{"--format", "srt"}, "srt"},
		{"transcribe-vtt", []string{"--format", "vtt", "--language", "en"}, "vtt"},
		{"transcribe-json", []string{"--json"}, "verbose_json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			path := clip(t, 4096)
			args := append([]string{"transcribe", path}, tt.args...)
			r := c.run(context.Background(), args...)
			args[1] = "meeting.wav"
			golden(t, tt.name, args, r)
			last, ok := c.srv.LastRequest()
			if !ok || last.File == nil || last.File.Size != 4096 || last.Form["response_format"] != tt.format {
				t.Errorf("request = %+v, want the file and response_format %s", last, tt.format)
			}
		})
	}
}

func TestTranscribeFromURLToFile(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	out := filepath.Join(t.TempDir(), "talk.srt")
	r := c.run(context.Background(), "transcribe", "https://bucket.example/talk.mp3?sig=x", "--format", "srt", "-o", out)
	if r.code != exitOK || r.stdout != "" || r.stderr != "using the real gateway at GATEWAY\nwrote "+out+"\n" {
		t.Fatalf("transcribe -o = %+v", r)
	}
	written, err := os.ReadFile(out)
	if err != nil || !strings.HasPrefix(string(written), "1\n00:00:00,000 --> ") {
		t.Errorf("%s holds %q, %v; want the subtitles", out, written, err)
	}
	if last, _ := c.srv.LastRequest(); last.Form["s3_presigned_url"] != "https://bucket.example/talk.mp3?sig=x" || last.File != nil {
		t.Errorf("request = %+v, want the URL and no upload", last)
	}
}

// TestTranscribeProgressBar checks that the bar is drawn on a terminal, and taken off the line
// before the transcript, and that nothing of it is written when stderr is not a terminal.
func TestTranscribeProgressBar(t *testing.T) {
	t.Parallel()
	for _, term := range []bool{true, false} {
		c := newCLI(t)
		c.term.err = term
		r := c.run(context.Background(), "transcribe", clip(t, 1<<20))
		if r.code != exitOK {
			t.Fatalf("transcribe = %+v", r)
		}
		drawn := strings.Contains(r.stderr, "meeting.wav  0 B / 1.0 MiB  0%") &&
			strings.Contains(r.stderr, "1.0 MiB / 1.0 MiB  100%") && strings.HasSuffix(r.stderr, "\r\033[K")
		if drawn != term {
			t.Errorf("stderr a terminal: %v; stderr = %q", term, r.stderr)
		}
		if !term && r.stderr != "using the real gateway at GATEWAY\n" {
			t.Errorf("stderr not a terminal = %q, want the gateway line alone", r.stderr)
		}
	}
}

func TestTranscribeMissingFile(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.run(context.Background(), "transcribe", filepath.Join(t.TempDir(), "none.mp3"))
	if r.code != exitFailed || !strings.HasPrefix(r.stderr, "infergate: open ") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("transcribe of a missing file = %+v, want one error line and status 1", r)
	}
}

// TestTranscribeEmptyFile: a file the SDK refuses is named in the error, as the user typed it.
func TestTranscribeEmptyFile(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	path := clip(t, 0)
	r := c.run(context.Background(), "transcribe", path)
	want := "infergate: " + path + ": invalid File: is empty"
	if r.code != exitFailed || !strings.Contains(r.stderr, want) || strings.Count(r.stderr, "\n") != 2 {
		t.Errorf("transcribe of an empty file = %+v, want one line with %q", r, want)
	}
	if n := len(c.srv.Requests()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

func TestSpeak(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := newCLI(t)
	out := filepath.Join(dir, "hello.wav")
	r := c.run(context.Background(), "speak", "Hello", "from", "the", "gateway.", "-o", out, "--voice", "af_bella")
	want := gatewaytest.SpeechAudio("wav")
	if r.code != exitOK || !strings.HasSuffix(r.stderr, "wrote "+out+" ("+bytesText(int64(len(want)))+")\n") {
		t.Fatalf("speak = %+v", r)
	}
	if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s holds %d bytes (%v), want the fake's wav", out, len(got), err)
	}
	last, _ := c.srv.LastRequest()
	if last.JSON["input"] != "Hello from the gateway." || last.JSON["voice"] != "af_bella" || last.JSON["response_format"] != "wav" {
		t.Errorf("request = %s", last.Body)
	}

	r = c.run(context.Background(), "speak", "Piped.", "--format", "flac")
	if r.code != exitOK || r.stdout != string(gatewaytest.SpeechAudio("flac")) {
		t.Errorf("speak to a pipe = status %d, %d bytes", r.code, len(r.stdout))
	}
}

func TestSpeakUsage(t *testing.T) {
	t.Parallel()
	runGolden(t, []goldenCase{
		{name: "speak-to-a-terminal", args: []string{"speak", "Hello."}, term: terminals{out: true}},
		{name: "speak-unknown-format", args: []string{"speak", "Hello.", "-o", "hello.xyz"}},
		{name: "speak-json", args: []string{"speak", "--json", "Hello.", "-o", "hello.mp3"}},
	})
}

func TestEmbed(t *testing.T) {
	t.Parallel()
	runGolden(t, []goldenCase{
		{name: "embed", args: []string{"embed", "-m", "bge-m3", "first text", "second text"}},
		{name: "embed-stdin", args: []string{"embed"}, stdin: "one\n\n  two  \n"},
		{name: "embed-nothing", args: []string{"embed"}},
		{name: "embed-json", args: []string{"embed", "--json", "first text", "second text"}},
	})
}

// TestEmbedJSONHoldsTheVectors: embed --json, one line per vector, is JSON that holds each text
// with the vector the gateway gave it.
func TestEmbedJSONHoldsTheVectors(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	texts := []string{"alpha", "beta gamma", `quote " and \ back`}
	r := c.run(context.Background(), append([]string{"embed", "--json"}, texts...)...)
	var got struct {
		Model   string         `json:"model"`
		Vectors []embeddedText `json:"vectors"`
		Usage   struct {
			TotalTokens int `json:"total_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != exitOK {
		t.Fatalf("embed --json = %+v: %v", r, err)
	}
	client := c.srv.Client()
	want, err := client.Embeddings.Create(context.Background(), infergate.EmbeddingRequest{Input: texts})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Vectors) != len(texts) || got.Model != want.Model || got.Usage.TotalTokens != want.Usage.TotalTokens {
		t.Fatalf("embed --json = %+v, want %d vectors of %s", got, len(texts), want.Model)
	}
	for i, v := range got.Vectors {
		if v.Text != texts[i] || !slices.Equal(v.Embedding, want.Data[i].Embedding) {
			t.Errorf("vector %d = %+v, want %q and %v", i, v, texts[i], want.Data[i].Embedding)
		}
	}
	if lines := strings.Count(r.stdout, "\n"); lines != len(texts)+10 {
		t.Errorf("embed --json is %d lines, want one per vector and ten more:\n%s", lines, r.stdout)
	}
}

// TestTranscribeFormatFromTheFileName: -o picks the transcript's format from the file's extension,
// as speak's -o does; --format, when given, wins.
func TestTranscribeFormatFromTheFileName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, flag, sent, starts string
	}{
		{"talk.vtt", "", "vtt", "WEBVTT"},
		{"talk.SRT", "", "srt", "1\n00:00:00,000 --> "},
		{"talk.json", "", "verbose_json", "{"},
		{"talk.txt", "", "text", ""},
		{"talk.log", "", "text", ""},
		{"talk.vtt", "srt", "srt", "1\n00:00:00,000 --> "},
	}
	for _, tt := range tests {
		t.Run(tt.file+tt.flag, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			out := filepath.Join(t.TempDir(), tt.file)
			args := []string{"transcribe", clip(t, 64), "-o", out}
			if tt.flag != "" {
				args = append(args, "--format", tt.flag)
			}
			if r := c.run(context.Background(), args...); r.code != exitOK {
				t.Fatalf("transcribe -o %s = %+v", tt.file, r)
			}
			last, _ := c.srv.LastRequest()
			written, err := os.ReadFile(out)
			if err != nil || last.Form["response_format"] != tt.sent || !strings.HasPrefix(string(written), tt.starts) ||
				(tt.sent == "text" && strings.HasPrefix(string(written), "WEBVTT")) {
				t.Errorf("-o %s --format %q sent response_format %q and wrote %q (%v); want %q, starting %q",
					tt.file, tt.flag, last.Form["response_format"], written, err, tt.sent, tt.starts)
			}
		})
	}
}
