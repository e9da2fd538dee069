// Vision asks a vision model about two images in one message: a local file, sent inline, and a
// photo on the web, which the gateway fetches itself.
//
//	go run ./examples/vision [image.png|.jpg|.gif|.webp]
//
// Without an argument it draws a small PNG to send. It talks to the gateway at INFERGATE_BASE_URL
// (else the real one) when INFERGATE_API_KEY or INFERGATE_BASE_URL is set, and otherwise to an
// in-process fake.
package main

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"log"
	"os"
	"path/filepath"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

const photoURL = "https://upload.wikimedia.org/wikipedia/commons/thumb/d/dd/Gfp-wisconsin-madison-the-nature-boardwalk.jpg/2560px-Gfp-wisconsin-madison-the-nature-boardwalk.jpg"

// fake is what the fake gateway answers in place of a vision model.
var fake = []gatewaytest.ServerOption{gatewaytest.WithReplies(gatewaytest.Reply{
	Content: "The first image is a red square. The second is a wooden boardwalk through green grass under a blue sky.",
})}

func main() {
	client, stop, err := gatewaytest.Connect(os.Stdout, os.Getenv, fake...)
	if err != nil {
		log.Fatal(err)
	}
	err = run(context.Background(), os.Stdout, client, os.Args[1:]...)
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

// run describes the image named by args, or a drawn square when there is none.
func run(ctx context.Context, out io.Writer, client *infergate.Client, args ...string) error {
	path := ""
	if len(args) > 0 {
		path = args[0]
	} else {
		dir, err := os.MkdirTemp("", "vision")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if path, err = drawSquare(dir); err != nil {
			return err
		}
	}
	// ImageFilePart checks that the file is an image the gateway takes and inlines it as a data URI.
	local, err := infergate.ImageFilePart(path)
	if err != nil {
		return err
	}
	resp, err := client.Chat.Create(ctx, infergate.ChatRequest{
		Model: "qwen2.5-vl-72b",
		Messages: []infergate.Message{infergate.UserMessageParts(
			infergate.TextPart("Describe each of these two images in one sentence."),
			local,
			infergate.ImageURLPart(photoURL),
		)},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "asked about %s and a photo on the web\n", filepath.Base(path))
	fmt.Fprintln(out, resp.Text())
	return nil
}

// drawSquare writes a 16×16 red PNG into dir and returns its path.
func drawSquare(dir string) (string, error) {
	img := image.NewNRGBA(image.Rect(0, 0, 16, 16))
	for y := range 16 {
		for x := range 16 {
			img.Set(x, y, color.NRGBA{R: 220, A: 255})
		}
	}
	path := filepath.Join(dir, "red-square.png")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}
