package think

import (
	"slices"
	"strings"
	"testing"
)

const space = " \t\r\n"

// read reads text through a Splitter in the pieces cuts make, then flushes it.
func read(text string, cuts []int) (reasoning, content string) {
	var t Splitter
	var r, c strings.Builder
	last := 0
	for _, cut := range append(cuts, len(text)) {
		pr, pc := t.Write(text[last:cut])
		r.WriteString(pr)
		c.WriteString(pc)
		last = cut
	}
	pr, pc := t.Flush()
	r.WriteString(pr)
	c.WriteString(pc)
	if t.Holding() {
		panic("a flushed Splitter holds text")
	}
	return r.String(), c.String()
}

func TestSplit(t *testing.T) {
	t.Parallel()
	tests := []struct{ text, reasoning, content string }{
		{"no tags at all", "", "no tags at all"},
		{"<think>\nThree.\n</think>\n\nThree.", "\nThree.\n", "Three."},
		{"  \n<think>x</think>y", "x", "y"},
		{"opened in the prompt</think>\n answer", "opened in the prompt", "answer"},
		{"<think>never closed", "never closed", ""},
		{"Hello <think>x</think> there", "Hello <think>x", "there"},
		{"<think>a</think>b</think>c", "a", "b</think>c"},
		{"<thin", "", "<thin"},
		{"", "", ""},
	}
	for _, tt := range tests {
		if r, c := Split(tt.text); r != tt.reasoning || c != tt.content {
			t.Errorf("Split(%q) = %q, %q; want %q, %q", tt.text, r, c, tt.reasoning, tt.content)
		}
		for cut := range len(tt.text) + 1 {
			if r, c := read(tt.text, []int{cut}); r != tt.reasoning || c != tt.content {
				t.Errorf("%q cut at %d reads %q, %q; want %q, %q", tt.text, cut, r, c, tt.reasoning, tt.content)
			}
		}
	}
}

func TestPendingIsWhatFlushWouldGive(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ text, reasoning, content string }{
		{"<think>inside</th", "</th", ""},
		{"no closing tag yet", "", "no closing tag yet"},
		{" <th", "", " <th"},
	} {
		var s Splitter
		s.Write(tt.text)
		if !s.Holding() {
			t.Errorf("%q: nothing held", tt.text)
		}
		r, c := s.Pending()
		if r != tt.reasoning || c != tt.content {
			t.Errorf("%q: Pending = %q, %q; want %q, %q", tt.text, r, c, tt.reasoning, tt.content)
		}
		if fr, fc := s.Flush(); fr != r || fc != c {
			t.Errorf("%q: Flush = %q, %q, Pending said %q, %q", tt.text, fr, fc, r, c)
		}
	}
}

// wellSplit reports whether reasoning and content are text with only tags and white space taken
// out, in one of the shapes the reading knows: no tag; white space, "<think>", the reasoning, never
// closed; the reasoning after an opening or none, "</think>", white space, the content.
func wellSplit(text, reasoning, content string) bool {
	if strings.Contains(reasoning, Close) {
		return false // the first closing tag ends the reasoning
	}
	if reasoning == "" && content == text {
		return true
	}
	opening := func(head string) bool {
		spaces, ok := strings.CutSuffix(head, Open)
		return ok && strings.TrimLeft(spaces, space) == ""
	}
	if head, ok := strings.CutSuffix(text, reasoning); ok && content == "" && opening(head) {
		return true
	}
	rest, ok := strings.CutSuffix(text, content)
	if !ok || (content != "" && strings.ContainsRune(space, rune(content[0]))) {
		return false
	}
	if rest, ok = strings.CutSuffix(strings.TrimRight(rest, space), Close); !ok {
		return false
	}
	head, ok := strings.CutSuffix(rest, reasoning)
	return ok && (head == "" || opening(head))
}

// FuzzSplit: any text, cut anywhere (between the bytes of a character too), reads without a panic
// as the same reasoning and content as the whole text does, and loses no byte but tags and the
// white space around them.
func FuzzSplit(f *testing.F) {
	f.Add("<think>\nOkay, three.\n</think>\n\nThree.", []byte{3, 9, 30})
	f.Add("Okay, three.</think>\n\nThree.", []byte{12, 13, 14})
	f.Add("  <th", []byte{1, 3})
	f.Add("<think>never closed</th", []byte{5})
	f.Add("Hello <think>x</think> there", []byte{})
	f.Add("<think></think>\xff\xfe</think>", []byte{7, 8, 15})
	f.Fuzz(func(t *testing.T, text string, at []byte) {
		var cuts []int
		for _, b := range at {
			cuts = append(cuts, int(b)%(len(text)+1))
		}
		slices.Sort(cuts)
		reasoning, content := read(text, cuts)
		wr, wc := Split(text)
		if wr != reasoning || wc != content {
			t.Fatalf("%q cut at %v reads %q and %q, the whole text %q and %q", text, cuts, reasoning, content, wr, wc)
		}
		if !wellSplit(text, reasoning, content) {
			t.Fatalf("%q reads as reasoning %q and content %q, which lose more than tags and white space", text, reasoning, content)
		}
	})
}
