package gatewaytest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

func ask(text string) infergate.ChatRequest {
	return infergate.ChatRequest{Model: "llama-3.3-70b", Messages: []infergate.Message{
		infergate.SystemMessage("Answer briefly."), infergate.UserMessage(text),
	}}
}

// record runs each question against a fresh fake through a cassette in mode.
func record(t *testing.T, path string, mode gatewaytest.CassetteMode, questions ...string) {
	t.Helper()
	fake := gatewaytest.NewServer()
	defer fake.Close()
	c := openCassette(t, path, mode)
	client := fake.Client(c.Option())
	for _, q := range questions {
		if _, err := client.Chat.Create(context.Background(), ask(q)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCassetteMissShowsDiff(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.json")
	record(t, path, gatewaytest.CassetteRecord, "Capital of France?", "Capital of Spain?")
	play := openCassette(t, path, gatewaytest.CassetteReplay)
	_, err := offline(t, play).Chat.Create(context.Background(), ask("Capital of Italy?"))
	var miss *gatewaytest.CassetteMissError
	if !errors.As(err, &miss) {
		t.Fatalf("got %v, want a *CassetteMissError", err)
	}
	msg := err.Error()
	for _, want := range []string{"POST /api/v1/chat/completions", `"Capital of Italy?"`, "-recorded +sent"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q:\n%s", want, msg)
		}
	}
	// The diff is against one recorded request, and the miss was not
	// retried: sending it again would miss again.
	if strings.Count(msg, "Capital of") != 2 || strings.Contains(msg, "attempts") {
		t.Errorf("the diff is not narrowed to the changed message:\n%s", msg)
	}
	if strings.Contains(msg, "replay-api-key") {
		t.Errorf("the error holds the API key:\n%s", msg)
	}

	// Once its recordings are used, a recorded request misses too, saying so.
	client := offline(t, play)
	if _, err := client.Chat.Create(context.Background(), ask("Capital of Spain?")); err != nil {
		t.Fatal(err)
	}
	_, err = client.Chat.Create(context.Background(), ask("Capital of Spain?"))
	if !errors.As(err, &miss) || miss.Replayed != 1 || !strings.Contains(err.Error(), "its 1 recording was already replayed") {
		t.Fatalf("got %v, want a miss saying its one recording was replayed", err)
	}
}

// The recording ignores key order and white space in a JSON body.
func TestCassetteMatchesCanonicalJSON(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.json")
	record(t, path, gatewaytest.CassetteRecord, "Capital of France?")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Someone reformats the file by hand: the body's keys in another order.
	edited := strings.Replace(string(b), `"model": "llama-3.3-70b"`, `"model"  :  "llama-3.3-70b" `, 1)
	edited = strings.Replace(edited, `"json": {`, `"json": { "zz": null, `, 1)
	edited = strings.Replace(edited, `"zz": null, `, ``, 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	play := openCassette(t, path, gatewaytest.CassetteReplay)
	if _, err := offline(t, play).Chat.Create(context.Background(), ask("Capital of France?")); err != nil {
		t.Fatal(err)
	}
}

func TestCassetteRecordMissingKeepsOldEntries(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.json")
	record(t, path, gatewaytest.CassetteRecord, "first")
	// A new fake, whose counters start again: the first answer must come from
	// the file, and only the second from the fake.
	record(t, path, gatewaytest.CassetteRecordMissing, "first", "second")
	play := openCassette(t, path, gatewaytest.CassetteReplay)
	client := offline(t, play)
	for _, q := range []string{"first", "second"} {
		resp, err := client.Chat.Create(context.Background(), ask(q))
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if !strings.Contains(resp.Text(), q) {
			t.Fatalf("%s answered %q", q, resp.Text())
		}
	}
	b, _ := os.ReadFile(path)
	if n := strings.Count(string(b), `"path": "/api/v1/chat/completions"`); n != 2 {
		t.Fatalf("%d interactions, want 2 (old kept, new added, none twice)", n)
	}
}

// No t.Parallel: the test sets the environment.
func TestCassetteRecordVariable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.json")
	record(t, path, gatewaytest.CassetteRecord, "first")
	t.Setenv("INFERGATE_RECORD", "1")
	c := openCassette(t, path, gatewaytest.CassetteReplay)
	if c.Mode() != gatewaytest.CassetteRecordMissing {
		t.Fatalf("mode %v with INFERGATE_RECORD=1, want CassetteRecordMissing", c.Mode())
	}
	c.Close()
	record(t, path, gatewaytest.CassetteReplay, "first", "second")
	t.Setenv("INFERGATE_RECORD", "")
	play := openCassette(t, path, gatewaytest.CassetteReplay)
	client := offline(t, play)
	for _, q := range []string{"first", "second"} {
		if _, err := client.Chat.Create(context.Background(), ask(q)); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func TestCassetteReplayNeedsTheFile(t *testing.T) {
	t.Parallel()
	_, err := gatewaytest.OpenCassette(filepath.Join(t.TempDir(), "none.json"), gatewaytest.CassetteReplay)
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("got %v, want os.ErrNotExist", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"version": 99, "interactions": []}`), 0o644)
	if _, err := gatewaytest.OpenCassette(bad, gatewaytest.CassetteReplay); err == nil || !strings.Contains(err.Error(), "version 99") {
		t.Fatalf("got %v, want a version error", err)
	}
}

// One cassette shared by goroutines records and replays every call once.
func TestCassetteParallel(t *testing.T) {
	t.Parallel()
	const n = 16
	path := filepath.Join(t.TempDir(), "c.json")
	fake := gatewaytest.NewServer()
	rec := openCassette(t, path, gatewaytest.CassetteRecord)
	run := func(client *infergate.Client) []string {
		out := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				ctx := context.Background()
				if i%2 == 0 {
					resp, err := client.Chat.Create(ctx, ask(fmt.Sprint("q", i)))
					if err != nil {
						out[i] = err.Error()
						return
					}
					out[i] = resp.Text()
					return
				}
				s, err := streamSession(ctx, client)
				out[i] = fmt.Sprint(len(s) > 0, err)
			})
		}
		wg.Wait()
		return out
	}
	live := run(fake.Client(rec.Option()))
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	fake.Close()
	play := openCassette(t, path, gatewaytest.CassetteReplay)
	replayed := run(offline(t, play))
	for i := range n {
		if live[i] != replayed[i] || strings.Contains(live[i], "error") {
			t.Errorf("call %d: live %q, replayed %q", i, live[i], replayed[i])
		}
	}
}

// An upload matches by its fields and the hash of its file, whatever
// boundary the multipart body had; other audio misses, saying so.
func TestCassetteMatchesUploadsByHash(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.json")
	fake := gatewaytest.NewServer()
	rec := openCassette(t, path, gatewaytest.CassetteRecord)
	transcribe := func(c *infergate.Client, audio string) (*infergate.Transcription, error) {
		return c.Audio.Transcribe(context.Background(), infergate.TranscriptionRequest{
			File: strings.NewReader(audio), FileName: "clip.wav", Language: "en",
		})
	}
	live, err := transcribe(fake.Client(rec.Option()), "RIFF audio one")
	if err != nil {
		t.Fatal(err)
	}
	rec.Close()
	fake.Close()
	before, _ := os.ReadFile(path)

	play := openCassette(t, path, gatewaytest.CassetteReplay)
	client := offline(t, play)
	got, err := transcribe(client, "RIFF audio one")
	if err != nil || got.Text != live.Text {
		t.Fatalf("replayed %+v, %v; want %+v", got, err, live)
	}
	_, err = transcribe(client, "RIFF audio two")
	var miss *gatewaytest.CassetteMissError
	if !errors.As(err, &miss) || !strings.Contains(miss.Diff, "SHA256") || !strings.Contains(miss.Diff, `"language": "en"`) {
		t.Fatalf("got %v, want a miss whose diff shows the file's hash", err)
	}
	// Replaying never writes the file.
	if err := play.Close(); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("a replaying cassette rewrote its file")
	}
}
