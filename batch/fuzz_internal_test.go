package batch

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
)

// FuzzLines feeds arbitrary bytes to the input's and the output's line parsers, and to the line
// reader: none panics, a line read back is a line of the file, and an accepted input line is a
// request ready to send.
func FuzzLines(f *testing.F) {
	for _, seed := range []string{
		`{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"messages":[{"role":"user","content":"hi"}]}}`,
		`{"custom_id":"e","method":"POST","url":"/api/v1/embeddings","body":{"input":"x","encoding_format":"base64"}}`,
		`{"custom_id":"e","method":"POST","url":"/v1/embeddings","body":{"input":[[1]]}}`,
		`{"custom_id":"s","method":"POST","url":"/v1/chat/completions","body":{"stop":"x","Model":1,"tools":[{"function":{"name":"f","parameters":{"a":1}}}],"messages":[{"role":"user","content":[{"type":"text","text":"t"}]}]}}`,
		`{"id":"batch_req_1","custom_id":"a","response":{"status_code":200,"request_id":"r","body":{}},"error":null}`,
		`{"custom_id":"a","response":null,"error":{"code":"x","message":"y"}}`,
		"{\"custom_id\":\"a\"\n\n{", "", "\n", "null", `[]`, `{"custom_id":""}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if c, err := parseLine(b); err == nil {
			if c.customID == "" || (c.chat == nil) == (c.embed == nil) {
				t.Fatalf("accepted %q as %+v", b, c)
			}
			if c.chat != nil && c.chat.Validate() != nil || c.embed != nil && c.embed.Validate() != nil {
				t.Fatalf("accepted an invalid request: %q", b)
			}
		}
		if o, err := parseResult(b); err == nil && (o.customID == "" || !json.Valid(bytes.TrimSpace(b))) {
			t.Fatalf("accepted %q as %+v", b, o)
		}
		_ = customIDOf(b)
		lr := newLineReader(bytes.NewReader(b))
		var joined []byte
		for {
			line, terminated, err := lr.next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			joined = append(joined, line...)
			if terminated {
				joined = append(joined, '\n')
			}
		}
		if !bytes.Equal(joined, b) || lr.end != int64(len(b)) {
			t.Fatalf("read %q back as %q", b, joined)
		}
	})
}
