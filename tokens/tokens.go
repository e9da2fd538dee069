package tokens

import (
	"encoding/json"
	"sync"

	"github.com/infergate/infergate-go"
	"github.com/tiktoken-go/tokenizer/codec"
)

// A message adds 1 for its role and 3 for its framing, whatever it holds, as the node counts it.
const perMessage = 1 + 3

// cl100k is built on the first count: building cl100k_base's vocabulary takes tens of
// milliseconds and holds it in memory for good. It is the codec the node's tokenizer.Get returns
// for Cl100kBase, taken from its package so that a program carries this one vocabulary, not those
// of every encoding. The node builds a codec on every count; one shared codec counts the same, as
// nothing in it changes once built.
var cl100k = sync.OnceValue(codec.NewCl100kBase)

// CountText returns the number of cl100k_base tokens in text, as the gateway's nodes count a
// message's text and a completion. Text that spells a special token, such as "<|endoftext|>", is
// counted as ordinary text, and a byte that is not UTF-8 as U+FFFD, as the request's JSON carries
// it.
func CountText(text string) int {
	// A text the splitter gives up on counts the tokens found before, as the node's does.
	n, _ := cl100k().Count(text)
	return n
}

// CountPrompt returns the prompt tokens a node counts for msgs as this SDK sends them: for each
// message, 4, plus the tokens of its content (of its text parts when it has parts: an image or a
// part of another type counts nothing), plus the tokens of its name. Tool calls, tool call ids,
// reasoning and the fields of Extra count nothing.
func CountPrompt(msgs []infergate.Message) int {
	n := perMessage * len(msgs)
	for i := range msgs {
		m := &msgs[i]
		switch {
		case len(m.Parts) > 0:
			for j := range m.Parts {
				n += CountText(partText(&m.Parts[j]))
			}
		case m.Parts == nil:
			n += CountText(m.Content)
		}
		// Parts set but empty are sent as an empty list, in place of Content: no content to the node.
		if m.Name != "" {
			n += CountText(m.Name)
		}
	}
	return n
}

// partText returns the text a node counts in a part: a text part's text, as the part is sent. A
// part carried as Raw is sent as it is, so its own "type" and "text" decide.
func partText(p *infergate.ContentPart) string {
	if len(p.Raw) == 0 {
		if p.Type != "text" {
			return ""
		}
		return p.Text
	}
	var raw struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(p.Raw, &raw) != nil || raw.Type != "text" {
		return ""
	}
	return raw.Text
}
