package benchmarks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// The workloads' sizes, as the comparison states them.
const (
	textChunks     = 10_000
	toolFragments  = 1_000
	completionSize = 50_000
	catalogueSize  = 1_000
	historyTurns   = 20
	historySize    = 50_000
)

// chunkHead opens every chunk of the streams, shaped like a real provider's.
const chunkHead = `{"id":"chatcmpl-8f3a9c2b","object":"chat.completion.chunk","created":1731000000,"model":"llama-3.3-70b","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":`

// streamWorkload is a pre-built event stream and what it must decode to.
type streamWorkload struct {
	body   []byte
	chunks int    // the chunks that carry the payload, the unit of the per-chunk figures
	text   string // the content the chunks add up to
	args   string // the tool call's reassembled arguments
}

// textStream is a role chunk, n content chunks (every 50th a sentence end with a newline, so that
// escapes are decoded too), a finishing chunk, a usage chunk and [DONE].
func textStream(n int) streamWorkload {
	var buf bytes.Buffer
	var text strings.Builder
	fmt.Fprintf(&buf, "data: %s{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n", chunkHead)
	for i := range n {
		token := fmt.Sprintf(" word%d", i%997)
		if i%50 == 49 {
			token = ".\n"
		}
		text.WriteString(token)
		fmt.Fprintf(&buf, "data: %s{\"content\":%s},\"logprobs\":null,\"finish_reason\":null}]}\n\n", chunkHead, quote(token))
	}
	fmt.Fprintf(&buf, "data: %s{},\"logprobs\":null,\"finish_reason\":\"stop\"}]}\n\n", chunkHead)
	buf.WriteString(`data: {"id":"chatcmpl-8f3a9c2b","object":"chat.completion.chunk","created":1731000000,"model":"llama-3.3-70b","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":10000,"total_tokens":10012}}` + "\n\n")
	buf.WriteString("data: [DONE]\n\n")
	return streamWorkload{body: buf.Bytes(), chunks: n, text: text.String()}
}

// toolStream is one tool call whose arguments arrive in n fragments: id, type and name first, then
// index-only argument pieces, then finish_reason "tool_calls". With placeholder, a lone "{}"
// fragment comes before the real arguments, as some provider backends send it.
func toolStream(n int, placeholder bool) streamWorkload {
	args := toolArguments(n * 6)
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "data: %s{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"index\":0,\"id\":\"call_7Xk2\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]},\"logprobs\":null,\"finish_reason\":null}]}\n\n", chunkHead)
	fragment := func(s string) {
		fmt.Fprintf(&buf, "data: %s{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":%s}}]},\"logprobs\":null,\"finish_reason\":null}]}\n\n", chunkHead, quote(s))
	}
	if placeholder {
		fragment("{}")
	}
	for i := range n {
		fragment(args[i*len(args)/n : (i+1)*len(args)/n])
	}
	fmt.Fprintf(&buf, "data: %s{},\"logprobs\":null,\"finish_reason\":\"tool_calls\"}]}\n\n", chunkHead)
	buf.WriteString("data: [DONE]\n\n")
	return streamWorkload{body: buf.Bytes(), chunks: n, args: args}
}

// toolArguments returns a JSON object of about size bytes.
func toolArguments(size int) string {
	var b strings.Builder
	b.WriteString(`{"location":"Paris, France","unit":"celsius","days":[`)
	for i := 0; b.Len() < size-40; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"day":%d,"note":"sunny spells"}`, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

// completionBody is a non-streamed answer of about size bytes, with the gateway's extra usage
// objects; it returns the body and the answer's text.
func completionBody(size int) ([]byte, string) {
	var text strings.Builder
	const escapesPerLine = 3 // two quotes and the newline each take a backslash in the JSON
	for i := 0; text.Len()+escapesPerLine*i < size-600; i++ {
		fmt.Fprintf(&text, "Paragraph %d says \"hello\" to the reader and goes on for a while.\n", i)
	}
	body := fmt.Sprintf(`{"id":"chatcmpl-8f3a9c2b","object":"chat.completion","created":1731000000,"model":"llama-3.3-70b","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"message":{"role":"assistant","content":%s,"refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":11000,"total_tokens":11012},"usage_from_provider":{"prompt_tokens":12,"completion_tokens":11000,"total_tokens":11012},"usage_from_consumer":{"prompt_tokens":13,"completion_tokens":10990,"total_tokens":11003}}`, quote(text.String()))
	return []byte(body), text.String()
}

// catalogueBody is the deployed gateway's model list with n models.
func catalogueBody(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"object":"list","data":[`)
	types := []string{"LLM", "LLM", "EMBEDDING", "STT", "TTS"}
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"model-%04d","blockchainID":"0x%064x","created":%d,"tags":["llm","fast","tier-%d"],"modelType":%q}`,
			i, 0xabcdef0000+i, 1731000000+i, i%3, types[i%len(types)])
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// historyMessage is one turn of the conversation the encode workload sends, in no client's types;
// each contender converts it once to its own.
type historyMessage struct {
	role, content, toolCallID  string
	callID, callName, callArgs string // the assistant's tool call, when callID is set
}

// chatHistory is a conversation of turns messages and about size bytes of text: a system prompt,
// then users asking, the assistant calling a tool (with some text) and the tool's results, in turn.
// The text has quotes, newlines and <, > and &, so that every encoder has escaping to do.
func chatHistory(turns, size int) []historyMessage {
	history := []historyMessage{{role: "system", content: "You are a helpful assistant.\nAnswer briefly & cite <sources>."}}
	perTurn := size / (turns - 1)
	for i := 1; i < turns; i++ {
		var text strings.Builder
		for line := 0; text.Len() < perTurn; line++ {
			fmt.Fprintf(&text, "Turn %d, line %d: the \"report\" says <b>%d%%</b> & more.\n", i, line, i*line%100)
		}
		callID := fmt.Sprintf("call_%03d", (i-2)/3) // the assistant's call and the tool's result after it
		switch i % 3 {
		case 1:
			history = append(history, historyMessage{role: "user", content: text.String()})
		case 2:
			history = append(history, historyMessage{role: "assistant", content: text.String(),
				callID: callID, callName: "get_weather", callArgs: `{"location":"Paris, France","unit":"celsius"}`})
		default:
			history = append(history, historyMessage{role: "tool", content: text.String(), toolCallID: callID})
		}
	}
	return history
}

// history is the encode workload's conversation, shared by every contender.
var history = chatHistory(historyTurns, historySize)

// shortAnswer is the reply to the encode workload's call: small, so that the call's cost is the
// request's.
const shortAnswer = `{"id":"chatcmpl-8f3a9c2b","object":"chat.completion","created":1731000000,"model":"llama-3.3-70b","choices":[{"index":0,"message":{"role":"assistant","content":"Sunny, 21 °C."},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":12000,"completion_tokens":6,"total_tokens":12006}}`

func quote(s string) string {
	q, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(q)
}

// replayTransport answers every request with the same pre-built body. It reads the request body to
// its end, as a server would, and remembers the last request's method, path and body size so that
// tests can check what each client sent.
type replayTransport struct {
	body        []byte
	contentType string

	mu      sync.Mutex
	last    seenRequest
	readBuf []byte
}

// requestReadSize is how much of a request body net/http's transport reads at a time (through
// io.Copy into the connection), so that uploads are read here in pieces of the size they would be
// on a real connection.
const requestReadSize = 32 << 10

type seenRequest struct {
	method, path string
	bodyBytes    int64
}

func newReplay(body []byte, contentType string) *replayTransport {
	return &replayTransport{body: body, contentType: contentType}
}

func (t *replayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var n int64
	if req.Body != nil {
		if t.readBuf == nil {
			t.readBuf = make([]byte, requestReadSize)
		}
		// Hiding io.Discard's ReadFrom makes the reads requestReadSize long, as net/http's are.
		n, _ = io.CopyBuffer(struct{ io.Writer }{io.Discard}, req.Body, t.readBuf)
		req.Body.Close()
	}
	t.last = seenRequest{method: req.Method, path: req.URL.Path, bodyBytes: n}
	return &http.Response{
		Status:        "200 OK",
		StatusCode:    http.StatusOK,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {t.contentType}},
		Body:          io.NopCloser(bytes.NewReader(t.body)),
		ContentLength: int64(len(t.body)),
		Request:       req,
	}, nil
}

func (t *replayTransport) lastRequest() seenRequest {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}

// The stream results every client's loop produces, compared by the tests.
type streamResult struct {
	text   string
	args   string // the first tool call's arguments
	name   string
	id     string
	chunks int // chunks that carried content or tool-call fragments
}
