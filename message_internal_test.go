package infergate

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

// Shapes of a streamed tool call, chosen by the fuzzer's flags.
const (
	shapePlaceholder  = 1 << iota // a lone "{}" fragment comes before the real arguments
	shapeNoIndex                  // fragments leave out "index"
	shapeEmptyIDs                 // later fragments repeat "id":"" and "type":""
	shapeRepeatIDs                // later fragments repeat the real id and name
	shapeTwoCalls                 // a second, parallel call follows with the same arguments
	shapeFinishInline             // finish_reason rides on the last fragment's chunk
	shapeNoDone                   // the stream ends at EOF instead of [DONE]
)

// FuzzImageDetection checks that detection never panics, accepts only the four formats, and that
// every image it accepts makes a data URI that the request validation accepts in turn.
func FuzzImageDetection(f *testing.F) {
	for _, data := range []string{
		"\xff\xd8\xff\xe0", "\x89PNG\r\n\x1a\n\x00\x00", "GIF89a", "GIF87a", "RIFF\x00\x00\x00\x00WEBPVP8 ",
		"RIFF\x00\x00\x00\x00WEBX", "%PDF-1.7", "", "\xff\xd8", "<svg xmlns='http://www.w3.org/2000/svg'/>",
	} {
		f.Add([]byte(data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		mime, err := detectImage(data)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("detection error %T is not a *ValidationError", err)
			}
			if _, err := ImageBytesPart(data); err == nil {
				t.Fatal("ImageBytesPart accepted bytes that detection refused")
			}
			return
		}
		switch mime {
		case "image/jpeg", "image/png", "image/gif", "image/webp":
		default:
			t.Fatalf("detected unsupported type %q", mime)
		}
		part, err := ImageBytesPart(data)
		if err != nil {
			t.Fatalf("ImageBytesPart: %v", err)
		}
		if err := validateImageURL("url", part.ImageURL.URL); err != nil {
			t.Fatalf("the SDK's own data URI was refused: %v", err)
		}
	})
}

// FuzzImageURL checks that URL validation never panics and accepts only https URLs and data URIs
// whose declared type is one of the four formats and matches the bytes.
func FuzzImageURL(f *testing.F) {
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\nrest"))
	for _, u := range []string{
		"https://example.com/cat.png", "http://example.com/cat.png", "data:image/png;base64," + png,
		"data:image/jpeg;base64," + png, "data:image/png;base64,", "data:image/png,raw", "data:;base64,AAAA",
		"data:image/png;base64,!!!!", "https://", "ftp://x", "", "data:image/gif;base64,R0lGODlh", "https://[::1",
	} {
		f.Add(u)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		err := validateImageURL("url", raw)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != "url" {
				t.Fatalf("error %v is not a *ValidationError for the field", err)
			}
			return
		}
		if declared, ok := strings.CutPrefix(raw, "data:"); ok {
			mime, _, _ := strings.Cut(declared, ";base64,")
			if _, known := map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}[mime]; !known {
				t.Fatalf("accepted a data URI declaring %q", mime)
			}
			return
		}
		if lower := strings.ToLower(raw); !strings.HasPrefix(lower, "https:") && !strings.HasPrefix(lower, "http:") {
			t.Fatalf("accepted %q, which is not http(s)", raw)
		}
	})
}
