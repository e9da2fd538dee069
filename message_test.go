package infergate_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/infergate/infergate-go"
)

var imageHeads = map[string][]byte{
	"image/jpeg": []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"),
	"image/png":  []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
	"image/gif":  []byte("GIF89a\x01\x00\x01\x00"),
	"image/webp": []byte("RIFF\x24\x00\x00\x00WEBPVP8 "),
}

func TestImageBytesPart(t *testing.T) {
	t.Parallel()
	for mime, data := range imageHeads {
		t.Run(mime, func(t *testing.T) {
			part, err := infergate.ImageBytesPart(data)
			if err != nil {
				t.Fatal(err)
			}
			want := "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
			if part.Type != "image_url" || part.ImageURL.URL != want {
				t.Errorf("part = %+v, want URL %s", part, want)
			}
		})
	}
	for name, data := range map[string][]byte{"pdf": []byte("%PDF-1.4\n"), "bmp": []byte("BM\x00\x00"), "empty": nil, "text": []byte("hello")} {
		t.Run("refuses "+name, func(t *testing.T) {
			var verr *infergate.ValidationError
			if _, err := infergate.ImageBytesPart(data); !errors.As(err, &verr) {
				t.Errorf("err = %v, want a ValidationError", err)
			}
		})
	}
}

func TestImageFilePart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	part, err := infergate.ImageFilePart(write("cat.png", imageHeads["image/png"]))
	if err != nil || !strings.HasPrefix(part.ImageURL.URL, "data:image/png;base64,") {
		t.Fatalf("png: %v, %+v", err, part)
	}
	var verr *infergate.ValidationError
	if _, err := infergate.ImageFilePart(write("cat.jpg", imageHeads["image/png"])); !errors.As(err, &verr) || !strings.Contains(verr.Reason, "extension") {
		t.Errorf("mismatched extension: err = %v", err)
	}
	if _, err := infergate.ImageFilePart(write("doc.png", []byte("%PDF-1.4"))); !errors.As(err, &verr) {
		t.Errorf("unsupported content: err = %v", err)
	}
	if _, err := infergate.ImageFilePart(filepath.Join(dir, "missing.png")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestSeveralImagesValidate(t *testing.T) {
	t.Parallel()
	png, _ := infergate.ImageBytesPart(imageHeads["image/png"])
	gif, _ := infergate.ImageBytesPart(imageHeads["image/gif"])
	req := infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessageParts(
		infergate.TextPart("compare"), png, gif, infergate.ImageURLPart("https://example.com/x.webp"))}}
	if err := req.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := req.Messages[0].Text(); got != "compare" {
		t.Errorf("Text() = %q", got)
	}
}

// Parts replace Content on the wire: a message holding both must not lose Content silently, while
// an answer's message, whose Content is its parts' text, goes back as it came.
func TestContentAndPartsMustAgree(t *testing.T) {
	t.Parallel()
	request := func(m infergate.Message) error {
		req := infergate.ChatRequest{Model: "m", Messages: []infergate.Message{m}}
		return req.Validate()
	}
	both := infergate.UserMessageParts(infergate.TextPart("what is "), infergate.ImageURLPart("https://example.com/cat.png"))
	both.Content = "describe the cat"
	var invalid *infergate.ValidationError
	if err := request(both); !errors.As(err, &invalid) || invalid.Field != "Messages[0].Content" {
		t.Errorf("Content %q beside parts %q: err = %v, want a *ValidationError on Messages[0].Content", both.Content, both.Text(), err)
	}

	var answer infergate.Message
	raw := `{"role":"assistant","content":[{"type":"text","text":"a cat "},{"type":"image_url","image_url":{"url":"https://example.com/c.png"}},{"type":"text","text":"on a mat"}]}`
	if err := json.Unmarshal([]byte(raw), &answer); err != nil {
		t.Fatal(err)
	}
	if answer.Content == "" || answer.Parts == nil {
		t.Fatalf("the answer has Content %q and %d parts; the test needs both", answer.Content, len(answer.Parts))
	}
	if err := request(answer); err != nil {
		t.Errorf("an answer's message sent back: %v", err)
	}
	for _, m := range []infergate.Message{
		infergate.UserMessage("just text"),
		infergate.UserMessageParts(infergate.TextPart("just parts")),
		{Role: infergate.RoleUser, Content: "just parts", Parts: []infergate.ContentPart{infergate.TextPart("just parts")}},
	} {
		if err := request(m); err != nil {
			t.Errorf("%+v: %v", m, err)
		}
	}
}
