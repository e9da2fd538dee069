package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// TestOutput runs what main runs, against the fake gateway.
func TestOutput(t *testing.T) {
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
	want := `using an in-process fake gateway (set INFERGATE_API_KEY to use the real one)
asked about red-square.png and a photo on the web
The first image is a red square. The second is a wooden boardwalk through green grass under a blue sky.
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// TestBothImagesInOneMessage decodes what was sent: the drawn PNG inline, then the photo's URL.
func TestBothImagesInOneMessage(t *testing.T) {
	srv := gatewaytest.New(t, fake...)
	if err := run(context.Background(), new(strings.Builder), srv.Client()); err != nil {
		t.Fatal(err)
	}
	req, _ := srv.LastRequest()
	msgs := req.JSON["messages"].([]any)
	parts := msgs[0].(map[string]any)["content"].([]any)
	if len(msgs) != 1 || len(parts) != 3 {
		t.Fatalf("want one message of three parts, sent %s", req.Body)
	}
	url := func(i int) string { return parts[i].(map[string]any)["image_url"].(map[string]any)["url"].(string) }
	if got := url(2); got != photoURL {
		t.Errorf("second image = %q, want %q", got, photoURL)
	}
	data, ok := strings.CutPrefix(url(1), "data:image/png;base64,")
	if !ok {
		t.Fatalf("first image is not an inline PNG: %.40s", url(1))
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if r, g, b, _ := img.At(8, 8).RGBA(); img.Bounds().Dx() != 16 || r>>8 != 220 || g != 0 || b != 0 {
		t.Errorf("sent a %v image with centre %v, want the 16×16 red square", img.Bounds(), img.At(8, 8))
	}
}

func TestRunRefusesNonImages(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.png")
	if err := os.WriteFile(text, []byte("not an image"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		want func(error) bool
	}{
		{"text named .png", text, func(err error) bool {
			var v *infergate.ValidationError
			return errors.As(err, &v)
		}},
		{"missing file", filepath.Join(dir, "none.png"), func(err error) bool { return errors.Is(err, os.ErrNotExist) }},
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
