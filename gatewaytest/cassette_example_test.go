package gatewaytest_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// A session is recorded once (here against the fake, standing in for the
// real gateway and a key), then replayed with no gateway at all; a request
// the recording lacks fails with a diff against the closest recorded one.
func ExampleOpenCassette() {
	dir, err := os.MkdirTemp("", "cassette")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "capitals.json") // in a real suite: testdata/capitals.json, committed
	ask := func(client *infergate.Client, country string) (string, error) {
		resp, err := client.Chat.Create(context.Background(), infergate.ChatRequest{
			Model:    "llama-3.3-70b",
			Messages: []infergate.Message{infergate.UserMessage("Capital of " + country + "?")},
		})
		if err != nil {
			return "", err
		}
		return resp.Text(), nil
	}

	// Recording: every call goes to the gateway and is kept.
	gateway := gatewaytest.NewServer()
	gateway.Enqueue(gatewaytest.Reply{Content: "Paris."})
	rec, err := gatewaytest.OpenCassette(path, gatewaytest.CassetteRecord)
	if err != nil {
		log.Fatal(err)
	}
	answer, err := ask(gateway.Client(rec.Option()), "France")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("recorded:", answer)
	if err := rec.Close(); err != nil { // writes the file
		log.Fatal(err)
	}
	gateway.Close()

	// Replaying: no gateway, no key; the base URL is never dialled.
	play, err := gatewaytest.OpenCassette(path, gatewaytest.CassetteReplay)
	if err != nil {
		log.Fatal(err)
	}
	defer play.Close()
	client, err := infergate.NewClient(infergate.WithBaseURL("http://gateway.invalid"), play.Option())
	if err != nil {
		log.Fatal(err)
	}
	answer, err = ask(client, "France")
	fmt.Println("replayed:", answer, err)

	_, err = ask(client, "Spain")
	msg := err.Error()
	fmt.Println(msg[strings.Index(msg, "has no recording"):])
	// Output:
	// recorded: Paris.
	// replayed: Paris. <nil>
	// has no recording of POST /api/v1/chat/completions; closest recorded request (-recorded +sent):
	//   map[string]any{
	//   	"json": map[string]any{
	//   		"messages": []any{
	//   			map[string]any{
	// - 				"content": string("Capital of France?"),
	// + 				"content": string("Capital of Spain?"),
	//   				"role":    string("user"),
	//   			},
	//   		},
	//   		"model": string("llama-3.3-70b"),
	//   	},
	//   	"method": string("POST"),
	//   	"path":   string("/api/v1/chat/completions"),
	//   }
}
