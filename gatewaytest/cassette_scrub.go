package gatewaytest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/infergate/infergate-go/internal/redact"
)

// redacted replaces every credential in a cassette file.
const redacted = "REDACTED"

// redactor blanks out the credentials the cassette has seen and, for one
// interaction, the idempotency key its request was sent with: the SDK's own
// redactor, which finds them however a server spelled them. Called with c.mu
// held.
func (c *Cassette) redactor(idempotencyKey string) redact.Set {
	secrets := make([]string, 0, len(c.secrets)+1)
	for s := range c.secrets {
		secrets = append(secrets, s)
	}
	return redact.New(redacted, append(secrets, idempotencyKey)...)
}

// clean scrubs an interaction: credentials, then the user's scrubbers, then
// credentials again, as a scrubber may put one back.
func (c *Cassette) clean(in *Interaction, set redact.Set) {
	in.scrub(set)
	for _, s := range c.cfg.scrubbers {
		s(in)
	}
	in.scrub(set)
}

// scrub blanks every credential out of every text the interaction holds,
// decoded: base64 bodies are scrubbed as the bytes they hold.
func (in *Interaction) scrub(set redact.Set) {
	rq := &in.Request
	rq.Method, rq.Path = set.String(rq.Method), set.String(rq.Path)
	if rq.Query != nil {
		q := url.Values{}
		for k, vs := range rq.Query {
			for _, v := range vs {
				q.Add(set.String(k), set.String(v))
			}
		}
		rq.Query = q
	}
	rq.JSON = scrubJSON(rq.JSON, set)
	rq.Text = set.String(rq.Text)
	if rq.Form != nil {
		form := make(map[string]string, len(rq.Form))
		for k, v := range rq.Form {
			form[set.String(k)] = set.String(v)
		}
		rq.Form = form
	}
	if rq.File != nil {
		rq.File.Filename = set.String(rq.File.Filename)
	}
	rs := &in.Response
	if rs.Header != nil {
		h := make(http.Header, len(rs.Header))
		for k, vs := range rs.Header {
			for _, v := range vs {
				h[set.String(k)] = append(h[set.String(k)], set.String(v))
			}
		}
		for _, k := range droppedHeaders {
			h.Del(k)
		}
		rs.Header = h
	}
	rs.JSON = scrubJSON(rs.JSON, set)
	if rs.Text != nil {
		t := set.String(*rs.Text)
		rs.Text = &t
	}
	if rs.Base64 != nil {
		rs.Base64 = set.Bytes(rs.Base64)
	}
	for i := range rs.Events {
		e := &rs.Events[i]
		e.Raw = set.String(e.Raw)
		e.Data = scrubJSON(e.Data, set)
		if e.Base64 != nil {
			e.Base64 = set.Bytes(e.Base64)
		}
	}
}

// scrubJSON blanks credentials out of a JSON text where it stands, so that
// the bytes around them stay the server's. A credential whose blanking
// would break the JSON (one spelled across its syntax) is blanked out of
// the decoded strings instead, the text encoded again.
func scrubJSON(b json.RawMessage, set redact.Set) json.RawMessage {
	if len(b) == 0 {
		return b
	}
	out := set.Bytes(b)
	if bytes.Equal(out, b) {
		return b
	}
	if json.Valid(out) {
		return out
	}
	v, ok := decodeJSON(b)
	if !ok {
		return out // not JSON to begin with: only a scrubber can have put it there
	}
	out, err := json.Marshal(cleanValue(v, set))
	if err != nil || !bytes.Equal(set.Bytes(out), out) {
		return json.RawMessage(`"` + redacted + `"`)
	}
	return out
}

// cleanValue blanks credentials out of every string and key of a decoded
// JSON value.
func cleanValue(v any, set redact.Set) any {
	switch t := v.(type) {
	case string:
		return set.String(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[set.String(k)] = cleanValue(e, set)
		}
		return out
	case []any:
		for i, e := range t {
			t[i] = cleanValue(e, set)
		}
	}
	return v
}

// learnRequestSecrets adds the bearer credential of a request and its
// cookies. Called with c.mu held.
func (c *Cassette) learnRequestSecrets(req *http.Request) {
	for _, v := range req.Header.Values("Authorization") {
		if _, cred, ok := strings.Cut(v, " "); ok && strings.TrimSpace(cred) != "" {
			c.secrets[strings.TrimSpace(cred)] = struct{}{}
		} else if v != "" {
			c.secrets[v] = struct{}{}
		}
	}
	for _, v := range req.Header.Values("Cookie") {
		for _, ck := range strings.Split(v, ";") {
			if _, val, ok := strings.Cut(ck, "="); ok && len(val) >= 8 {
				c.secrets[strings.TrimSpace(val)] = struct{}{}
			}
		}
	}
}

// secretFields are the JSON fields whose string values a response carries
// credentials in, such as the key Keys.Create answers.
var secretFields = []string{"key", "api_key", "access_token", "token", "secret", "refresh_token"}

// learnResponseSecrets adds the credentials a JSON answer carries, whichever
// form its body is kept in. A field of the answer's own object is a
// credential whatever its length (Keys.Create's key); deeper, where a
// "token" is also a piece of text (log probabilities), a value must look
// like one. Called with c.mu held.
func (c *Cassette) learnResponseSecrets(body []byte) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' && body[0] != '[' {
		return
	}
	v, ok := decodeJSON(body)
	if !ok {
		return
	}
	var walk func(v any, top bool)
	walk = func(v any, top bool) {
		switch t := v.(type) {
		case map[string]any:
			for k, e := range t {
				s, ok := e.(string)
				if ok && slices.Contains(secretFields, strings.ToLower(k)) && (top && s != "" || looksLikeCredential(s)) {
					c.secrets[s] = struct{}{}
				}
				walk(e, false)
			}
		case []any:
			for _, e := range t {
				walk(e, false)
			}
		}
	}
	walk(v, true)
}

// looksLikeCredential tells a credential from a short label or a prefix
// shown for display (key_prefix is a different field anyway).
func looksLikeCredential(s string) bool {
	return len(s) >= 16 && !strings.ContainsAny(s, " \n")
}
