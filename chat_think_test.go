package infergate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	infergate "github.com/infergate/infergate-go"
)

// deepSeekAnswer is an answer of DeepSeek-R1 as Fireworks and Novita stream it: the reasoning in
// the content, between tags, and the answer after a blank line.
const (
	deepSeekReasoning = "\nOkay, the user asks how many r's are in \"strawberry\". Let me count: s-t-r-a-w-b-e-r-r-y. " +
		"That's r at position 3, then r, r at 8 and 9. So three.\n"
	deepSeekContent = "There are **three** r's in \"strawberry\"."
	deepSeekAnswer  = "<think>" + deepSeekReasoning + "</think>\n\n" + deepSeekContent
)

// thinkStream renders a stream whose content comes in pieces, as a provider sends it: a role
// chunk, a chunk per piece, a finishing chunk (unless finish is empty) and [DONE].
func thinkStream(finish string, pieces ...string) []byte {
	var b strings.Builder
	head := `data: {"id":"chatcmpl-r1","object":"chat.completion.chunk","created":1,"model":"accounts/fireworks/models/deepseek-r1","choices":[{"index":0,`
	b.WriteString(head + `"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n")
	for _, p := range pieces {
		quoted, _ := json.Marshal(p)
		fmt.Fprintf(&b, "%s\"delta\":{\"content\":%s},\"finish_reason\":null}]}\n\n", head, quoted)
	}
	if finish != "" {
		fmt.Fprintf(&b, "%s\"delta\":{},\"finish_reason\":%q}]}\n\n", head, finish)
	}
	b.WriteString("data: [DONE]\n\n")
	return []byte(b.String())
}

// streamed is what a caller reads of a stream: the deltas' reasoning and content joined, and the
// stream's Completion.
type streamed struct {
	reasoning, content string
	completion         *infergate.ChatCompletion
	err                error
}

// readStream streams an answer whose body is stream, with opts.
func readStream(t *testing.T, stream []byte, opts ...infergate.Option) streamed {
	t.Helper()
	client := testClient(t, "http://gateway.invalid", append([]infergate.Option{answeringWith("text/event-stream", stream)}, opts...)...)
	s, err := client.Chat.Stream(context.Background(), infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessage("r's in strawberry?")}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out streamed
	var reasoning, content strings.Builder
	for s.Next() {
		reasoning.WriteString(s.Current().Reasoning())
		content.WriteString(s.Current().Text())
	}
	out.reasoning, out.content, out.completion, out.err = reasoning.String(), content.String(), s.Completion(), s.Err()
	return out
}

// check fails the test unless the deltas and the Completion both hold reasoning and content.
func (s streamed) check(t *testing.T, what, reasoning, content string) {
	t.Helper()
	if s.err != nil {
		t.Fatalf("%s: %v", what, s.err)
	}
	if s.reasoning != reasoning || s.content != content {
		t.Fatalf("%s: the deltas hold reasoning %q and content %q, want %q and %q", what, s.reasoning, s.content, reasoning, content)
	}
	if r, c := s.completion.Reasoning(), s.completion.Text(); r != reasoning || c != content {
		t.Fatalf("%s: Completion holds reasoning %q and content %q, want %q and %q", what, r, c, reasoning, content)
	}
}

// runeCuts returns the places text may be cut at: every byte boundary that is not inside a
// character (a server sends whole characters in each JSON string).
func runeCuts(text string) []int {
	var cuts []int
	for i := range len(text) + 1 {
		if i == len(text) || utf8.RuneStart(text[i]) {
			cuts = append(cuts, i)
		}
	}
	return cuts
}

// The tags and what surrounds them may be cut between chunks at any byte: an answer sent in two
// pieces, cut anywhere, reads as the same reasoning and content, with and without the opening tag.
func TestThinkTagsCutAnywhere(t *testing.T) {
	t.Parallel()
	for name, answer := range map[string]string{
		"opened in the answer": deepSeekAnswer,
		"opened in the prompt": strings.TrimPrefix(deepSeekAnswer, "<think>"),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, cut := range runeCuts(answer) {
				got := readStream(t, thinkStream("stop", answer[:cut], answer[cut:]), infergate.WithThinkTags())
				got.check(t, fmt.Sprintf("cut at %d", cut), deepSeekReasoning, deepSeekContent)
			}
			got := readStream(t, thinkStream("stop", strings.Split(answer, "")...), infergate.WithThinkTags())
			got.check(t, "a byte a chunk", deepSeekReasoning, deepSeekContent)
		})
	}
}

// randomThinkText is text with what makes the reading of tags hard: pieces of tags, white space,
// non-ASCII characters, JSON.
func randomThinkText(r *rand.Rand) string {
	pieces := []string{"<", "/", "think", ">", "<think>", "</think", "<thi", "\n", " ", "\t", "é", "😀", "{\"n\":1}", "x", "Okay,", "\\"}
	var b strings.Builder
	for range r.IntN(16) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// Property: for any reasoning R (without a closing tag) and content C (not starting with white
// space), "<think>R</think>" and white space then C, or the same without the opening tag, sent in
// chunks cut at random places, reads as R and C, in the deltas and in Completion; and Chat.Create
// reads the whole answer the same way.
func TestThinkTagsProperty(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(41, 14))
	spaces := []string{"", "\n", "\n\n", " \n\t "}
	for i := range 300 {
		reasoning := strings.ReplaceAll(randomThinkText(r), "</think>", "")
		content := strings.TrimLeft(randomThinkText(r), " \t\r\n")
		answer := reasoning + "</think>" + spaces[r.IntN(len(spaces))] + content
		if i%2 == 0 || strings.HasPrefix(strings.TrimLeft(answer, " \t\r\n"), "<think>") {
			answer = "<think>" + answer // what opens with the tag is read as opened by it
		}
		cuts := runeCuts(answer)
		var pieces []string
		for last := 0; last < len(answer); {
			next := cuts[r.IntN(len(cuts))]
			if next > last {
				pieces = append(pieces, answer[last:next])
				last = next
			} else if r.IntN(4) == 0 {
				pieces = append(pieces, answer[last:])
				break
			}
		}
		what := fmt.Sprintf("%q in %d pieces", answer, len(pieces))
		readStream(t, thinkStream("stop", pieces...), infergate.WithThinkTags()).check(t, what, reasoning, content)

		whole := wholeAnswer(answer)
		client := testClient(t, "http://gateway.invalid", answeringWith("application/json", []byte(whole)), infergate.WithThinkTags())
		c, err := client.Chat.Create(context.Background(), infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessage("hi")}})
		if err != nil {
			t.Fatal(err)
		}
		if c.Reasoning() != reasoning || c.Text() != content {
			t.Fatalf("Create of %q: reasoning %q and content %q, want %q and %q", answer, c.Reasoning(), c.Text(), reasoning, content)
		}
	}
}

// wholeAnswer is a whole answer whose content is text.
func wholeAnswer(text string) string {
	quoted, _ := json.Marshal(text)
	return `{"id":"chatcmpl-r1","object":"chat.completion","created":1,"model":"deepseek-r1","choices":[{"index":0,` +
		`"message":{"role":"assistant","content":` + string(quoted) + `},"finish_reason":"stop"}]}`
}

// Whole answers: the tags read as in a stream; an answer without tags, one with reasoning sent in its
// own field, and the option left out leave the answer as the server sent it.
func TestThinkTagsWholeAnswer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body           string
		opts                 []infergate.Option
		reasoning, content   string
		unchangedWithoutTags bool
	}{
		{"tags", wholeAnswer(deepSeekAnswer), []infergate.Option{infergate.WithThinkTags()}, deepSeekReasoning, deepSeekContent, false},
		{"closing tag only", wholeAnswer("I should greet.</think>\n\nHello!"), []infergate.Option{infergate.WithThinkTags()}, "I should greet.", "Hello!", false},
		{"never closed", wholeAnswer("\n<think>I should greet, and"), []infergate.Option{infergate.WithThinkTags()}, "I should greet, and", "", false},
		{"no tags", wholeAnswer("Hello! <think> is a tag."), []infergate.Option{infergate.WithThinkTags()}, "", "Hello! <think> is a tag.", false},
		{"tags in the content", wholeAnswer("<think>Greet.</think> Write <think>…</think> to think."), []infergate.Option{infergate.WithThinkTags()}, "Greet.", "Write <think>…</think> to think.", false},
		{"reasoning in its field too", `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","reasoning_content":"Server-side. ","content":"<think>Inline.</think>Hi"},"finish_reason":"stop"}]}`,
			[]infergate.Option{infergate.WithThinkTags()}, "Server-side. Inline.", "Hi", false},
		{"option left out", wholeAnswer(deepSeekAnswer), nil, "", deepSeekAnswer, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			client := testClient(t, "http://gateway.invalid", append([]infergate.Option{answeringWith("application/json", []byte(tc.body))}, tc.opts...)...)
			c, err := client.Chat.Create(context.Background(), infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessage("hi")}})
			if err != nil {
				t.Fatal(err)
			}
			if c.Reasoning() != tc.reasoning || c.Text() != tc.content {
				t.Errorf("reasoning %q and content %q, want %q and %q", c.Reasoning(), c.Text(), tc.reasoning, tc.content)
			}
			if string(c.RawJSON()) != tc.body {
				t.Errorf("RawJSON changed: %s", c.RawJSON())
			}
		})
	}
}

// Without the option a stream is what it always was: each delta's content as the server sent it,
// tags and all, and no reasoning.
func TestThinkTagsOffByDefault(t *testing.T) {
	t.Parallel()
	pieces := []string{"<thi", "nk>\nOkay", ".</th", "ink>", "\n\n", "Three."}
	client := testClient(t, "http://gateway.invalid", answeringWith("text/event-stream", thinkStream("stop", pieces...)))
	s, err := client.Chat.Stream(context.Background(), infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessage("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got []string
	for s.Next() {
		if s.Current().Reasoning() != "" {
			t.Errorf("a delta has reasoning %q", s.Current().Reasoning())
		}
		if text := s.Current().Text(); text != "" {
			got = append(got, text)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(pieces) || s.Completion().Text() != strings.Join(pieces, "") || s.Err() != nil {
		t.Errorf("deltas %q, Completion %q, Err %v; want the pieces sent", got, s.Completion().Text(), s.Err())
	}
}

// Text held back because its place was not known comes when the answer ends: with the finishing
// chunk, in a chunk of its own on a stream that ends without one, and in Completion when the
// stream breaks off.
func TestThinkTagsHeldTextComesAtTheEnd(t *testing.T) {
	t.Parallel()
	pieces := []string{"Hello", " there, ", "<thi"} // no opening tag: held until the end tells
	readStream(t, thinkStream("stop", pieces...), infergate.WithThinkTags()).check(t, "finished", "", "Hello there, <thi")
	readStream(t, thinkStream("", pieces...), infergate.WithThinkTags()).check(t, "ended without a finish_reason", "", "Hello there, <thi")
	unclosed := []string{"<think>Let me se", "e</th"}
	readStream(t, thinkStream("length", unclosed...), infergate.WithThinkTags()).check(t, "cut at the token limit", "Let me see</th", "")

	broken := thinkStream("", pieces...)
	broken = broken[:len(broken)-len("data: [DONE]\n\n")]
	got := readStream(t, broken, infergate.WithThinkTags())
	if got.err == nil || got.completion.Text() != "Hello there, <thi" {
		t.Errorf("a stream broken off: Err %v, Completion %q; want an error and all the text", got.err, got.completion.Text())
	}
}

// Typed answers read their value out of the content only: with the option, a value written in the
// reasoning of an answer whose template opened the tag in the prompt is not taken for the answer.
func TestThinkTagsTypedAnswers(t *testing.T) {
	t.Parallel()
	type count struct {
		N int `json:"n"`
	}
	answer := `The user wants a count. A draft: {"n": 1}. No, there are three.</think>` + "\n\n" + `{"n": 3}`
	spec := infergate.ObjectSpec{Mode: infergate.ObjectModePrompt, MaxAttempts: 1}
	req := infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessage("How many r's in strawberry?")}}

	client := testClient(t, "http://gateway.invalid", answeringWith("application/json", []byte(wholeAnswer(answer))), infergate.WithThinkTags())
	obj, err := infergate.GenerateObject[count](context.Background(), client.Chat, req, spec)
	if err != nil || obj.Value.N != 3 {
		t.Errorf("GenerateObject: %+v, %v; want n 3", obj, err)
	}

	pieces := strings.SplitAfter(answer, " ")
	client = testClient(t, "http://gateway.invalid", answeringWith("text/event-stream", thinkStream("stop", pieces...)), infergate.WithThinkTags())
	var partials []count
	st := infergate.StreamObject[count](context.Background(), client.Chat, req, spec)
	for partial, err := range st.Partials() {
		if err != nil {
			t.Fatal(err)
		}
		partials = append(partials, partial)
	}
	obj, err = st.Wait()
	if err != nil || obj.Value.N != 3 {
		t.Errorf("StreamObject: %+v, %v; want n 3", obj, err)
	}
	for _, p := range partials {
		if p.N == 1 {
			t.Errorf("StreamObject showed the draft in the reasoning as a partial value: %+v", partials)
			break
		}
	}
}
