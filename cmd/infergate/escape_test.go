package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/infergate/infergate-go/gatewaytest"
)

// hostileText is what a server may put in a string to drive the terminal it is shown on.
var hostileText = []string{
	"\x1b]0;pwned\x07",     // sets the window's title
	"\x1b[2J\x1b[H",        // clears the screen
	"\x1b[1A\x1b[2Kok\n",   // writes over the line above
	"done\rFAILED",         // a carriage return alone: writes over its own line
	"\u202etxt.exe",        // a bidi override
	"\u2066a\u2069\u200f",  // bidi isolates and a mark
	"\u009b31m\u0085",      // the one-character CSI and NEL of C1
	"\xff\xfe\xc0\x80\xed", // bytes that are not UTF-8
	"\x00\x7f\x08\x0b\x0c", // NUL, DEL, backspace, vertical tab, form feed
	"line\u2028sep\u2029",  // line and paragraph separators
}

// randomServerText draws a string from every kind of character: printable ASCII and beyond,
// whitespace, C0 and C1 controls, DEL, bidi controls, separators, bytes that are not UTF-8, and
// whole escape sequences.
func randomServerText(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.IntN(24) {
		switch rng.IntN(9) {
		case 0:
			b.WriteByte(byte(0x20 + rng.IntN(0x5f))) // printable ASCII
		case 1:
			b.WriteRune([]rune("éß中文👍🏽\u200d😀ـعربي\u00a0")[rng.IntN(13)])
		case 2:
			b.WriteByte(byte(rng.IntN(0x20))) // C0
		case 3:
			b.WriteRune(rune(0x7f + rng.IntN(0x21))) // DEL and C1
		case 4:
			b.WriteRune([]rune("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029")[rng.IntN(14)])
		case 5:
			b.WriteByte(byte(0x80 + rng.IntN(0x80))) // not UTF-8 on its own
		case 6:
			b.WriteString(hostileText[rng.IntN(len(hostileText))])
		case 7:
			b.WriteString([]string{"\r\n", "\t", "\n", " ", `\x1b`}[rng.IntN(5)])
		default:
			b.WriteString("model")
		}
	}
	return b.String()
}

// randomPrintableText is a string of printable characters without white space, which every human
// output shows unchanged.
func randomPrintableText(rng *rand.Rand) string {
	var b strings.Builder
	for b.Len() == 0 || rng.IntN(12) != 0 {
		r := rune(0x21 + rng.IntN(0x3000))
		if unicode.IsGraphic(r) && !unicode.IsSpace(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// controlIn returns the first character of out that drives a terminal, and false when there is
// none: a control character other than the tab, the line feed and a CRLF's carriage return, a
// bidi control, a line or paragraph separator, or a byte that is not UTF-8.
func controlIn(out string) (string, bool) {
	for i, r := range out {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(out[i:], "\uFFFD"):
			return fmt.Sprintf("byte %#x at %d", out[i], i), true
		case r == '\r' && strings.HasPrefix(out[i:], "\r\n"), r == '\t', r == '\n':
		case unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r), unicode.In(r, unicode.Zl, unicode.Zp):
			return fmt.Sprintf("%U at %d", r, i), true
		}
	}
	return "", false
}

// jsonText writes s as a JSON string the way a careless server does: quotes, backslashes and C0
// escaped, every other byte as it is, invalid UTF-8 included.
func jsonText(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// hostileGateway answers the routes the commands call with text in every string a person is shown:
// the catalogue, bids, a streamed answer with reasoning, the health report, and errors (a plain
// text body and a JSON detail).
func hostileGateway(t *testing.T, text string) *httptest.Server {
	q := jsonText(text)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/models", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"object":"list","data":[{"id":%s,"blockchainID":%[1]s,"modelType":%[1]s,"tags":[%[1]s,"x"],"created":1757993282}]}`, q)
	})
	mux.HandleFunc("GET /api/v1/models/ratedbids", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"bids":[{"bid_id":%s,"provider":%[1]s,"model_id":%[1]s,"price_per_second":"0.000001","rating":4,"total_sessions":1,"availability":"available"},
			{"bid_id":"0xb2","provider":%[1]s,"model_id":"0xm","price_per_second":"0.000002","rating":3,"total_sessions":1,"availability":%[1]s}]}`, q)
	})
	mux.HandleFunc("POST /api/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, delta := range []string{`"role":"assistant","reasoning_content":` + q, `"content":` + q, `"content":` + q} {
			fmt.Fprintf(w, "data: {\"id\":%s,\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":%[1]s,\"choices\":[{\"index\":0,\"delta\":{%s}}]}\n\n", q, delta)
		}
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":%s}]}\n\ndata: [DONE]\n\n", q)
	})
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"status":%s,"version":%[1]s,"database":%[1]s,"model_service":{"status":%[1]s,"model_count":1}}`, q)
	})
	mux.HandleFunc("GET /api/v1/billing/balance", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, text)
	})
	mux.HandleFunc("GET /api/v1/billing/usage/month", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, `{"detail":%s}`, q)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// hostileRun runs a command against a hostileGateway serving text.
func hostileRun(t *testing.T, srv *httptest.Server, term terminals, args ...string) result {
	t.Helper()
	var stdout, stderr syncBuffer
	a := &app{
		stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, term: term,
		getenv: func(name string) string {
			return map[string]string{"INFERGATE_API_KEY": gatewaytest.DefaultAPIKey, "INFERGATE_BASE_URL": srv.URL}[name]
		},
		now: gatewaytest.FixedTime,
	}
	code := a.run(context.Background(), args)
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// humanCommands are command lines whose output shows server text to a person.
var humanCommands = [][]string{
	{"models"}, {"bids", gatewaytest.HexID("m")}, {"chat", "hi"}, {"health"}, {"balance"}, {"usage"},
}

// TestServerTextIsShownEscaped: whatever a server puts in its strings (controls of C0 and C1,
// ESC sequences, DEL, bidi overrides, separators, bytes that are not UTF-8), the human output of
// every command holds no character that drives a terminal; printable text is shown unchanged; and
// --json prints what the server sent exactly.
func TestServerTextIsShownEscaped(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, 0))
	texts := append([]string{}, hostileText...)
	for range 40 {
		texts = append(texts, randomServerText(rng))
	}
	for i, text := range texts {
		srv := hostileGateway(t, text)
		// On a terminal, the command dims the reasoning with its own sequences, which are the
		// only ones allowed through.
		for _, term := range []terminals{{}, {out: true, err: true}} {
			for _, args := range humanCommands {
				r := hostileRun(t, srv, term, args...)
				for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
					out = strings.NewReplacer(dim, "", reset, "").Replace(out)
					if where, found := controlIn(out); found {
						t.Fatalf("seed %#x, text %d %q: infergate %s %s holds a control character (%s):\n%q",
							seed, i, text, strings.Join(args, " "), name, where, out)
					}
				}
			}
		}
		var want any
		if err := json.Unmarshal([]byte(jsonText(text)), &want); err != nil {
			t.Fatalf("text %q: %v", text, err)
		}
		r := hostileRun(t, srv, terminals{out: true}, "models", "--json")
		var models []map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &models); err != nil || len(models) != 1 {
			t.Fatalf("text %q: models --json = %q: %v", text, r.stdout, err)
		}
		if models[0]["id"] != want {
			t.Errorf("text %q: models --json id = %q, want %q exactly", text, models[0]["id"], want)
		}
	}
}

func TestPrintableServerTextIsShownUnchanged(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, 0))
	for range 20 {
		text := randomPrintableText(rng)
		srv := hostileGateway(t, text)
		if r := hostileRun(t, srv, terminals{}, "chat", "hi"); r.stdout != text+text+"\n" {
			t.Errorf("seed %#x: chat shows %q, want the answer %q twice", seed, r.stdout, text)
		}
		if r := hostileRun(t, srv, terminals{}, "models"); !strings.Contains(r.stdout, "\n"+text+"  ") {
			t.Errorf("seed %#x: models shows %q, want the name %q", seed, r.stdout, text)
		}
		if r := hostileRun(t, srv, terminals{}, "balance"); !showsText(r.stderr, text) {
			t.Errorf("seed %#x: balance's error is %q, want the server's text %q in it", seed, r.stderr, text)
		}
	}
}

func TestEscapedText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"\x1b]0;pwned\x07": `\x1b]0;pwned\x07`,
		"done\rFAILED":     `done\x0dFAILED`,
		"a\r\nb\tc\n":      "a\r\nb\tc\n",
		"\u202etxt.exe":    `\u202etxt.exe`,
		"\u009b31m":        `\u009b31m`,
		"\xffé\xc3":        `\xffé\xc3`,
		"\x7f\u2028":       `\x7f\u2028`,
		`plain \x1b 中文 👍🏽`: `plain \x1b 中文 👍🏽`,
		"\u200d\u00a0":     "\u200d\u00a0",
	} {
		var out bytes.Buffer
		if _, err := escaping(&out).Write([]byte(in)); err != nil {
			t.Fatal(err)
		}
		if out.String() != want || printable(in) != want {
			t.Errorf("%q is written %q (printable: %q), want %q", in, out.String(), printable(in), want)
		}
	}
}

// FuzzEscapingWriter: any bytes written through the escapingWriter, in one write or two, come out
// without a character that drives a terminal, and printable text comes out unchanged; a table
// cell holds no control character either.
func FuzzEscapingWriter(f *testing.F) {
	for _, s := range hostileText {
		f.Add([]byte(s), uint8(3))
	}
	f.Add([]byte("plain text, 中文 and 👍🏽\n"), uint8(0))
	f.Fuzz(func(t *testing.T, text []byte, cut uint8) {
		var out bytes.Buffer
		w := escaping(&out)
		at := min(int(cut), len(text))
		for _, part := range [][]byte{text[:at], text[at:]} {
			if n, err := w.Write(part); n != len(part) || err != nil {
				t.Fatalf("Write(%q) = %d, %v", part, n, err)
			}
		}
		if where, found := controlIn(out.String()); found {
			t.Fatalf("%q is written %q, which holds a control character (%s)", text, out.String(), where)
		}
		// Text cut inside a character, or between a CRLF's two bytes, is escaped where it is cut.
		whole := at == len(text) || (utf8.RuneStart(text[at]) && !(at > 0 && bytes.HasPrefix(text[at-1:], []byte("\r\n"))))
		if _, found := controlIn(string(text)); !found && whole && out.String() != string(text) {
			t.Fatalf("printable %q is written %q", text, out.String())
		}
		if c := cell(string(text)); strings.ContainsAny(c, "\t\n\r") {
			t.Fatalf("cell(%q) = %q, which holds white space other than spaces", text, c)
		} else if where, found := controlIn(c); found {
			t.Fatalf("cell(%q) = %q, which holds a control character (%s)", text, c, where)
		}
	})
}

// showsText reports whether an error message shows the server's text: whole, or its start up to the
// "…" that ends an excerpt of a long page.
func showsText(stderr, text string) bool {
	if strings.Contains(stderr, text) {
		return true
	}
	_, after, ok := strings.Cut(stderr, "400 Bad Request: ")
	if !ok {
		return false
	}
	shown, _, _ := strings.Cut(after, "\n")
	start, cut := strings.CutSuffix(shown, "…")
	return cut && len(start) > 0 && strings.HasPrefix(text, start)
}
