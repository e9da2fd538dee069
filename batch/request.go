package batch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	infergate "github.com/infergate/infergate-go"
)

// The routes an input line may name, in OpenAI's spelling and the gateway's.
var routes = map[string]route{
	"/v1/chat/completions":     routeChat,
	"/api/v1/chat/completions": routeChat,
	"/v1/embeddings":           routeEmbeddings,
	"/api/v1/embeddings":       routeEmbeddings,
}

type route int

const (
	routeChat route = iota + 1
	routeEmbeddings
)

// call is an input line made ready to send.
type call struct {
	customID string
	body     json.RawMessage // as the line has it, for the idempotency key
	chat     *infergate.ChatRequest
	embed    *infergate.EmbeddingRequest
	// base64 tells that the line asked for its vectors as base64; they are written as floats
	// otherwise, OpenAI's default, whatever the wire carried.
	base64 bool
}

// parseLine reads and checks one input line. The call's customID is set whenever the line names
// one, even when the error is not nil.
func parseLine(line []byte) (call, error) {
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		return call{}, fmt.Errorf("not a JSON request object: %w", err)
	}
	c := call{customID: req.CustomID, body: req.Body}
	switch {
	case req.CustomID == "":
		return c, errors.New("custom_id is missing or empty")
	case req.Method != "POST":
		return c, fmt.Errorf("method %q: only POST is supported", req.Method)
	}
	body := bytes.TrimSpace(req.Body)
	if len(body) == 0 || body[0] != '{' {
		return c, errors.New("body is missing or not a JSON object")
	}
	var err error
	switch routes[req.URL] {
	case routeChat:
		c.chat, err = parseChat(body)
		if err == nil {
			err = c.chat.Validate()
		}
	case routeEmbeddings:
		c.embed, c.base64, err = parseEmbeddings(body)
		if err == nil {
			err = c.embed.Validate()
		}
	default:
		err = fmt.Errorf("url %q: want /v1/chat/completions or /v1/embeddings (or their /api/v1 spellings)", req.URL)
	}
	return c, err
}

// parseChat reads a chat completion body. The fields ChatRequest does not model go to its Extra as
// the JSON they are, so that the gateway gets them as the line wrote them; "stop" may be one
// string, as OpenAI allows.
func parseChat(body []byte) (*infergate.ChatRequest, error) {
	req := new(infergate.ChatRequest)
	wire := struct {
		*infergate.ChatRequest
		Stop json.RawMessage `json:"stop"`
	}{ChatRequest: req}
	if err := json.Unmarshal(body, &wire); err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	if stop := bytes.TrimSpace(wire.Stop); len(stop) > 0 && string(stop) != "null" {
		if stop[0] == '"' {
			var one string
			if err := json.Unmarshal(stop, &one); err != nil {
				return nil, fmt.Errorf("body: stop: %w", err)
			}
			req.Stop = []string{one}
		} else if err := json.Unmarshal(stop, &req.Stop); err != nil {
			return nil, fmt.Errorf("body: stop: give a string or a list of strings: %w", err)
		}
	}
	extra, fields, err := unmodelled(body, chatKeys)
	if err != nil {
		return nil, err
	}
	req.Extra = extra
	// A schema goes as the line wrote it, rather than through a map that would reorder its keys
	// and round its numbers.
	if raw := fields["tools"]; len(raw) > 0 && len(req.Tools) > 0 {
		var tools []struct {
			Function struct {
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		}
		if json.Unmarshal(raw, &tools) == nil && len(tools) == len(req.Tools) {
			for i, t := range tools {
				if p := bytes.TrimSpace(t.Function.Parameters); len(p) > 0 && p[0] == '{' {
					req.Tools[i].Function.Parameters = t.Function.Parameters
				}
			}
		}
	}
	return req, nil
}

// parseEmbeddings reads an embeddings body, its input one string or a list of them.
func parseEmbeddings(body []byte) (req *infergate.EmbeddingRequest, base64 bool, err error) {
	req = new(infergate.EmbeddingRequest)
	wire := struct {
		*infergate.EmbeddingRequest
		Input json.RawMessage `json:"input"`
	}{EmbeddingRequest: req}
	if err := json.Unmarshal(body, &wire); err != nil {
		return nil, false, fmt.Errorf("body: %w", err)
	}
	if input := bytes.TrimSpace(wire.Input); len(input) > 0 && input[0] == '"' {
		var one string
		if err := json.Unmarshal(input, &one); err != nil {
			return nil, false, fmt.Errorf("body: input: %w", err)
		}
		req.Input = []string{one}
	} else if len(input) > 0 && string(input) != "null" {
		if err := json.Unmarshal(input, &req.Input); err != nil {
			return nil, false, errors.New("body: input: give a string or a list of strings (token ids are not supported)")
		}
	}
	extra, _, err := unmodelled(body, embeddingKeys)
	if err != nil {
		return nil, false, err
	}
	req.Extra = extra
	return req, req.EncodingFormat == infergate.EmbeddingFormatBase64, nil
}

// The JSON keys the request types model: every other key of a body goes to Extra.
var (
	chatKeys      = jsonKeys(reflect.TypeFor[infergate.ChatRequest]())
	embeddingKeys = jsonKeys(reflect.TypeFor[infergate.EmbeddingRequest]())
)

func jsonKeys(t reflect.Type) []string {
	var keys []string
	for _, f := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.IsExported() && name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// unmodelled returns the body's fields whose keys are not among modelled, as Extra, and all its
// fields. A key that differs from a modelled one only in case would be read into that field by
// encoding/json and sent again by Extra: it is refused. "stream": false is left out (the batch
// sends every request whole); any other "stream" is refused.
func unmodelled(body []byte, modelled []string) (map[string]any, map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, nil, fmt.Errorf("body: %w", err)
	}
	var extra map[string]any
	for k, v := range fields {
		switch exact, folded := match(k, modelled); {
		case exact:
			continue
		case folded != "":
			return nil, nil, fmt.Errorf("body: key %q: write it %q", k, folded)
		case k == "stream":
			if string(bytes.TrimSpace(v)) != "false" {
				return nil, nil, errors.New(`body: "stream": a batch request is answered whole; leave stream out`)
			}
			continue
		}
		if extra == nil {
			extra = make(map[string]any)
		}
		extra[k] = v
	}
	return extra, fields, nil
}

func match(key string, names []string) (exact bool, folded string) {
	for _, n := range names {
		if key == n {
			return true, ""
		}
		if strings.EqualFold(key, n) {
			folded = n
		}
	}
	return false, folded
}

// customIDOf returns the custom_id of an input or output line; "" when it has none.
func customIDOf(line []byte) string {
	var named struct {
		CustomID string `json:"custom_id"`
	}
	if json.Unmarshal(line, &named) != nil {
		return ""
	}
	return named.CustomID
}
