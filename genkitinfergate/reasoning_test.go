package genkitinfergate_test

import (
	"strings"
	"testing"

	"github.com/firebase/genkit/go/ai"

	"github.com/infergate/infergate-go/gatewaytest"
)

// The model's reasoning is never part of the answer's text: not in a chunk's Text, streamed, nor
// in the response's Text when the model answered with reasoning alone. genkit's Text returns a
// lone part's text whatever its kind, so this holds only if no chunk or message is a lone
// reasoning part.
func TestReasoningStaysOutOfText(t *testing.T) {
	t.Parallel()
	for _, content := range []string{"", "The answer is 4."} {
		for _, spelling := range []string{"reasoning_content", "reasoning", "thinking"} {
			reply := gatewaytest.Reply{Reasoning: "Two and two make four.", Content: content,
				Quirks: gatewaytest.Quirks{ReasoningAs: spelling}}
			g, srv := newGenkit(t)
			srv.Enqueue(reply, reply)
			resp, err := generate(g, ai.WithPrompt("2+2?"))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text() != content || resp.Reasoning() != reply.Reasoning {
				t.Errorf("%s, content %q: Generate's Text %q, Reasoning %q", spelling, content, resp.Text(), resp.Reasoning())
			}
			resp, chunks, err := streamed(g, ai.WithPrompt("2+2?"))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text() != content || resp.Reasoning() != reply.Reasoning {
				t.Errorf("%s, content %q: streamed Text %q, Reasoning %q", spelling, content, resp.Text(), resp.Reasoning())
			}
			var text, reasoning strings.Builder
			for _, c := range chunks {
				text.WriteString(c.Text())
				reasoning.WriteString(c.Reasoning())
			}
			if text.String() != content || reasoning.String() != reply.Reasoning {
				t.Errorf("%s, content %q: chunks' Text %q, Reasoning %q", spelling, content, text.String(), reasoning.String())
			}
		}
	}
}
