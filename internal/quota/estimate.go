package quota

import "unicode/utf8"

// Estimate is the gateway's admission estimate of the input tokens of a request whose counted
// text is chars characters long: chars/4, and at least 1.
func Estimate(chars int) int {
	return max(chars/4, 1)
}

// StringContent is what a message's string content counts: its length in code points. A byte
// that is not UTF-8 counts one, as the U+FFFD it is sent as.
func StringContent(s string) int {
	return utf8.RuneCountInString(s)
}

// Part is one part of a message's content array, as the gateway validates it.
type Part struct {
	Type     string // "text", "image_url", or another type, whose part is given whole by JSON
	Text     string // a text part's text
	ImageURL string // an image part's URL, a data: URL counted in full
	Detail   string // an image part's detail; "" when not set
	// JSON is a part of another type, as sent: a JSON object. Its members with a null value are
	// left out, as the gateway drops them.
	JSON []byte
}

// The lengths of a text part's and an image part's repr() without their strings:
// {'type': 'text', 'text': …} and {'type': 'image_url', 'image_url': {'url': …}}, and an image's
// detail member , 'detail': ….
const (
	textPartFrame   = 26
	imagePartFrame  = 45
	imageDetailItem = 12
)

// Parts is what a content array counts: the length of the repr() of its list of parts,
// 2 + Σ part + 2·(n−1). A part of another type whose JSON is not a JSON object counts as the
// repr() of whatever value it holds, and a part whose JSON cannot be read as its JSON text's
// length.
func Parts(parts []Part) int {
	n := 2
	for i, p := range parts {
		if i > 0 {
			n += 2
		}
		n += partLen(p)
	}
	return n
}

// PartLen is what one part counts within Parts.
func PartLen(p Part) int { return partLen(p) }

func partLen(p Part) int {
	switch p.Type {
	case "text":
		return textPartFrame + ReprLen(p.Text)
	case "image_url":
		n := imagePartFrame + ReprLen(p.ImageURL)
		if p.Detail != "" {
			n += imageDetailItem + ReprLen(p.Detail)
		}
		return n
	}
	if n, err := ValueLen(p.JSON); err == nil {
		return n
	}
	return utf8.RuneCount(p.JSON)
}

// EmbeddingsInput is what an embeddings request whose input is texts counts: their lengths, and
// one space between two of them. A single string is a list of one.
func EmbeddingsInput(texts []string) int {
	n := max(len(texts)-1, 0)
	for _, t := range texts {
		n += StringContent(t)
	}
	return n
}
