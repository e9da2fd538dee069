// Speech turns a sentence into spoken audio and writes it to a file, streaming it to disk as it
// arrives.
//
//	go run ./examples/speech [file.mp3]
//
// The file's extension picks the format (mp3, opus, aac, flac, wav or pcm; speech.mp3 by default).
// It talks to the gateway at INFERGATE_BASE_URL (else the real one) when INFERGATE_API_KEY or
// INFERGATE_BASE_URL is set, and otherwise to an in-process fake, which answers a short tone or
// silence.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

func main() {
	path := "speech.mp3"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	client, stop, err := gatewaytest.Connect(os.Stdout, os.Getenv)
	if err != nil {
		log.Fatal(err)
	}
	err = run(context.Background(), os.Stdout, client, path)
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out io.Writer, client *infergate.Client, path string) error {
	format := infergate.SpeechFormat(strings.ToLower(strings.TrimPrefix(filepath.Ext(path), ".")))
	err := client.Audio.SpeakToFile(ctx, path, infergate.SpeechRequest{
		Input:          "Hello from the Inference Gateway. This sentence was generated as speech.",
		ResponseFormat: format,
		Speed:          infergate.Ptr(1.1),
	})
	if err != nil {
		return err
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %s (%s, %d bytes)\n", path, format, info.Size())
	return nil
}
