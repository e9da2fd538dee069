package quota

import (
	"errors"
	"unicode/utf8"
)

var errNotObject = errors.New("quota: the request is not a JSON object")

// ChatEstimate is the admission estimate of a chat completion request's JSON body. Messages that
// are not objects count nothing, as the gateway counts only dicts. A string the JSON spells with
// a lone surrogate escape counts the U+FFFD Go reads it as, one character where Python may write
// six.
func ChatEstimate(body []byte) (int, error) {
	req, err := parseValue(body)
	if err != nil {
		return 0, err
	}
	if req.kind != 'o' {
		return 0, errNotObject
	}
	chars := 0
	if messages, ok := req.member("messages"); ok && messages.kind == 'a' {
		for _, m := range messages.items {
			if content, ok := m.member("content"); ok && m.kind == 'o' {
				chars += contentLen(content)
			}
		}
	}
	return Estimate(chars), nil
}

// contentLen is what a message's content counts: str() of it, after validation.
func contentLen(content value) int {
	switch content.kind {
	case 'z':
		return 0
	case 's':
		return StringContent(content.text)
	case 'a':
		n := 2
		for i, part := range content.items {
			if i > 0 {
				n += 2
			}
			n += rawPartLen(part)
		}
		return n
	}
	return content.strLen()
}

// RawPartLen is what one part of a content array counts, given as the JSON the request sends:
// as Parts counts a text or image part when it has the members the gateway's model keeps, and
// whole otherwise. JSON that cannot be read counts its length.
func RawPartLen(raw []byte) int {
	v, err := parseValue(raw)
	if err != nil {
		return utf8.RuneCount(raw)
	}
	return rawPartLen(v)
}

// rawPartLen is what one part of a content array counts. A text or image part is rebuilt from the
// members the gateway's model keeps; another part is kept whole, but for its null members.
func rawPartLen(part value) int {
	typ, _ := part.member("type")
	switch typ.text {
	case "text":
		if text, ok := part.member("text"); ok && text.kind == 's' {
			return partLen(Part{Type: "text", Text: text.text})
		}
	case "image_url":
		image, _ := part.member("image_url")
		url, _ := image.member("url")
		detail, _ := image.member("detail")
		if url.kind == 's' && (detail.kind == 's' || detail.kind == 0 || detail.kind == 'z') {
			return partLen(Part{Type: "image_url", ImageURL: url.text, Detail: detail.text})
		}
	}
	return part.withoutNulls().reprLen()
}

// EmbeddingsEstimate is the admission estimate of an embeddings request's JSON body: its input,
// or str() of each of the input's items joined by one space; str() of any other input.
func EmbeddingsEstimate(body []byte) (int, error) {
	req, err := parseValue(body)
	if err != nil {
		return 0, err
	}
	if req.kind != 'o' {
		return 0, errNotObject
	}
	input, ok := req.member("input")
	if !ok {
		return Estimate(0), nil
	}
	if input.kind != 'a' {
		return Estimate(input.strLen()), nil
	}
	chars := max(len(input.items)-1, 0)
	for _, item := range input.items {
		chars += item.strLen()
	}
	return Estimate(chars), nil
}
