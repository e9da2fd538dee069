package infergate

import (
	"slices"
	"strings"
	"testing"
)

// foldThink folds text through an accumulator reading think tags, as the content of a stream's
// chunks cut at cuts, the last chunk finishing the choice when finish is set; a chunk Flush gives
// comes last. It returns the deltas' reasoning and content joined, and the completion's message.
func foldThink(text string, cuts []int, finish bool) (reasoning, content string, msg Message) {
	a := ChatAccumulator{thinkTags: true}
	var r, c strings.Builder
	read := func(chunk ChatCompletionChunk) {
		for _, ch := range chunk.Choices {
			r.WriteString(ch.Delta.Reasoning)
			c.WriteString(ch.Delta.Content)
		}
	}
	piece := func(s string, finish FinishReason) ChatCompletionChunk {
		return ChatCompletionChunk{Choices: []ChunkChoice{{Delta: Delta{Content: s}, FinishReason: finish}}}
	}
	last := 0
	for _, cut := range cuts {
		read(a.Add(piece(text[last:cut], "")))
		last = cut
	}
	var reason FinishReason
	if finish {
		reason = FinishReasonStop
	}
	read(a.Add(piece(text[last:], reason)))
	if chunk, ok := a.Flush(); ok {
		read(chunk)
	}
	return r.String(), c.String(), a.Completion().Message()
}

// FuzzThinkTags: any text, cut anywhere (between the bytes of a character too) and finished or
// not, reads without a panic as the same reasoning and content as the whole answer does, in the
// deltas and in the completion (internal/think's FuzzSplit checks what that reading keeps).
func FuzzThinkTags(f *testing.F) {
	f.Add("<think>\nOkay, three.\n</think>\n\nThree.", []byte{3, 9, 30}, true)
	f.Add("Okay, three.</think>\n\nThree.", []byte{12, 13, 14}, true)
	f.Add("  <th", []byte{1, 3}, false)
	f.Add("<think>never closed</th", []byte{5}, false)
	f.Add("Hello <think>x</think> there", []byte{}, true)
	f.Add("<think></think>\xff\xfe</think>", []byte{7, 8, 15}, false)
	f.Fuzz(func(t *testing.T, text string, at []byte, finish bool) {
		var cuts []int
		for _, b := range at {
			if len(text) > 0 {
				cuts = append(cuts, int(b)%(len(text)+1))
			}
		}
		slices.Sort(cuts)
		reasoning, content, msg := foldThink(text, cuts, finish)
		if msg.Reasoning != reasoning || msg.Content != content {
			t.Fatalf("%q: the deltas read %q and %q, the completion %q and %q", text, reasoning, content, msg.Reasoning, msg.Content)
		}
		whole := Message{Content: text}
		splitThink(&whole)
		if whole.Reasoning != reasoning || whole.Content != content {
			t.Fatalf("%q cut at %v reads %q and %q, the whole answer %q and %q", text, cuts, reasoning, content, whole.Reasoning, whole.Content)
		}
	})
}
