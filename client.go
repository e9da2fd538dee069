// Package infergate is the Go client for the Inference Gateway, an OpenAI-compatible gateway to AI
// models served by independent providers in a decentralized compute marketplace.
//
// Create a Client once and share it: it is safe for concurrent use by many goroutines.
//
//	client, err := infergate.NewClient() // reads INFERGATE_API_KEY and INFERGATE_BASE_URL
//	resp, err := client.Chat.Create(ctx, infergate.ChatRequest{
//		Model:    "llama-3.3-70b",
//		Messages: []infergate.Message{infergate.UserMessage("Hello!")},
//	})
//
// Each API area is a service on the Client: Chat, Audio, Embeddings, Models, Bids, History,
// Sessions, Billing, Keys and Health.
// Failed calls return an *APIError (test it with errors.Is against ErrUnauthorized, ErrRateLimited
// and the other sentinels), a successful status whose body cannot be read a *DecodeError, and a call
// that outlives WithTimeout (default 10 minutes) a *TimeoutError; requests that break the API's rules
// are refused before anything is sent with a *ValidationError.
package infergate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/infergate/infergate-go/internal/transport"
)

// DefaultBaseURL is the public gateway, used when neither WithBaseURL nor INFERGATE_BASE_URL is set.
const DefaultBaseURL = "https://api.mor.org/api/v1"

// Version is this SDK's version, sent in the User-Agent header.
const Version = "0.1.0"

// maxResponseBody bounds how much of a non-streaming response is read, so that a misbehaving server
// cannot exhaust memory.
const maxResponseBody = 256 << 20

// Client talks to the gateway. Its services hold one method per endpoint. The zero value is not
// usable: create clients with NewClient.
type Client struct {
	Chat     *ChatService     // chat completions, plain and streamed
	Audio    *AudioService    // audio transcription
	Models   *ModelsService   // the model catalogue
	Bids     *BidsService     // providers' rated bids for a model
	History  *HistoryService  // stored chats
	Sessions *SessionsService // provider sessions

	Embeddings *EmbeddingsService // vectors for texts
	Billing    *BillingService    // balance and usage
	Keys       *KeysService       // API keys of the account (access token only)
	Health     *HealthService     // the gateway's health check

	// cfg sits behind a pointer so that printing a Client with %+v shows an address, not credentials.
	cfg *config
	hc  *http.Client
}

// NewClient returns a client configured by opts on top of the environment: INFERGATE_API_KEY,
// INFERGATE_BASE_URL and INFERGATE_ACCESS_TOKEN. An invalid base URL is an error here rather than a
// failure later.
func NewClient(opts ...Option) (*Client, error) {
	cfg := defaultConfig()
	for _, opt := range opts {
		if opt != nil {
			opt(cfg)
		}
	}
	if err := cfg.finish(); err != nil {
		return nil, err
	}
	if cfg.responseInfo != nil {
		return nil, invalid("ResponseInfo", "WithResponseInfo is an option for one call: pass it to the method")
	}
	c := &Client{cfg: cfg, hc: cfg.transportClient()}
	c.Chat = &ChatService{client: c}
	c.Audio = &AudioService{client: c}
	c.Models = &ModelsService{client: c}
	c.Bids = &BidsService{client: c}
	c.History = &HistoryService{client: c}
	c.Sessions = &SessionsService{client: c}
	c.Embeddings = &EmbeddingsService{client: c}
	c.Billing = &BillingService{client: c}
	c.Keys = &KeysService{client: c}
	c.Health = &HealthService{client: c}
	return c, nil
}

// String describes the client without its credentials.
func (c *Client) String() string {
	return fmt.Sprintf("infergate.Client{BaseURL: %s, APIKey: %s, AccessToken: %s}", c.cfg.baseURL, c.cfg.apiKey, c.cfg.accessToken)
}

// Format prints the client the same way for every verb, so that no formatting of it, %#v and %+v
// included, can reveal a credential.
func (c *Client) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }

// authKind says which credential a route takes.
type authKind uint8

const (
	authAPIKey      authKind = iota
	authHistory              // the access token (JWT) when set, otherwise the API key
	authAccessToken          // the access token only: the route refuses API keys
	authNone                 // no credential at all, e.g. the health check
)

// apiRequest describes one call before it is sent.
type apiRequest struct {
	method      string
	path        string // below the /api/v1 root, e.g. "/chat/completions"
	query       url.Values
	body        any // nil, []byte, or retryablehttp.ReaderFunc
	contentType string
	auth        authKind
	sessionID   string // per-request session, overriding the client's
	stream      bool   // the caller reads the body itself, so it gets the stream's Accept header
	accept      string // the Accept header when neither JSON nor a stream of events is wanted
	successFlag bool   // the route reports failure in a 2xx as "success": false
	// outsideAPI puts path below the service root instead of the /api/v1 root, e.g. "/health".
	outsideAPI bool
}

// send performs the call with retries and returns the response for a 2xx status. Any other status
// becomes an *APIError; the response body is then already closed.
func (c *Client) send(ctx context.Context, ar apiRequest) (*http.Response, error) {
	req, err := c.newRequest(ctx, ar)
	if err != nil {
		return nil, err
	}
	resp, err := transport.Do(c.hc, c.policy(), req)
	if err != nil {
		return nil, c.cfg.redactError(err)
	}
	c.cfg.record(resp)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		body, _ := readBody(resp)
		apiErr := c.cfg.newAPIError(resp.StatusCode, resp.Header, body)
		c.cfg.logger.LogAttrs(ctx, slog.LevelDebug, "infergate: request failed",
			slog.String("method", ar.method), slog.String("path", ar.path),
			slog.Int("status", resp.StatusCode), slog.String("request_id", apiErr.RequestID))
		return nil, apiErr
	}
	return resp, nil
}

func (c *Client) newRequest(ctx context.Context, ar apiRequest) (*retryablehttp.Request, error) {
	credential, err := c.credential(ar.auth)
	if err != nil {
		return nil, err
	}
	u := *c.cfg.baseURL
	if ar.outsideAPI {
		u.Path = strings.TrimSuffix(u.Path, "/api/v1")
	}
	root := u.EscapedPath()
	u.Path += ar.path
	u.RawPath = ""
	if strings.Contains(ar.path, "%") {
		u.RawPath = root + ar.path
		u.Path, _ = url.PathUnescape(u.RawPath)
	}
	if len(ar.query) > 0 {
		u.RawQuery = ar.query.Encode()
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, ar.method, u.String(), ar.body)
	if err != nil {
		return nil, errorf("infergate: building %s %s: %w", ar.method, ar.path, err)
	}
	h := req.Header
	for k, v := range c.cfg.header {
		h[k] = v
	}
	if credential != "" {
		h.Set("Authorization", "Bearer "+credential)
	}
	h.Set("User-Agent", "infergate-go/"+Version)
	if ar.contentType != "" {
		h.Set("Content-Type", ar.contentType)
	}
	switch {
	case ar.accept != "":
		h.Set("Accept", ar.accept)
	case ar.stream:
		h.Set("Accept", "text/event-stream")
	default:
		h.Set("Accept", "application/json")
	}
	return req, nil
}

// credential picks the secret for a route. A missing one is reported before anything is sent.
func (c *Client) credential(kind authKind) (string, error) {
	switch {
	case kind == authNone:
		return "", nil
	case kind == authAccessToken && c.cfg.accessToken.value == "":
		return "", &ValidationError{Field: "AccessToken", Reason: "this route takes the access token only: use WithAccessToken or set INFERGATE_ACCESS_TOKEN"}
	case kind != authAPIKey && c.cfg.accessToken.value != "":
		return c.cfg.accessToken.value, nil
	}
	if c.cfg.apiKey.value == "" {
		return "", &ValidationError{Field: "APIKey", Reason: "no API key: use WithAPIKey or set INFERGATE_API_KEY"}
	}
	return c.cfg.apiKey.value, nil
}

// sessionFor returns the session a request runs in: its own, else the client's.
func (c *Client) sessionFor(requested string) string {
	if requested != "" {
		return requested
	}
	return c.cfg.sessionID
}

// doJSON sends a JSON body (when in is not nil) and decodes a JSON answer into out (when not nil).
func (c *Client) doJSON(ctx context.Context, ar apiRequest, in, out any, opts []Option) error {
	c, err := c.with(opts)
	if err != nil {
		return err
	}
	ctx, cancel := c.callContext(ctx)
	defer cancel()
	return timedOut(ctx, c.roundTripJSON(ctx, ar, in, out))
}

func (c *Client) roundTripJSON(ctx context.Context, ar apiRequest, in, out any) error {
	if in != nil {
		body, err := json.Marshal(in)
		if err != nil {
			return errorf("infergate: encoding %s request: %w", ar.path, err)
		}
		ar.body, ar.contentType = body, "application/json"
	}
	resp, err := c.send(ctx, ar)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := readBody(resp)
	if err != nil {
		return errorf("infergate: reading %s response: %w", ar.path, err)
	}
	return c.decodeBody(ar, resp, body, out)
}

// decodeBody turns a successful response's body into out (when not nil), or into the error the body
// reports.
func (c *Client) decodeBody(ar apiRequest, resp *http.Response, body []byte, out any) error {
	if err := c.errorIn200(ar, resp, body); err != nil {
		return err
	}
	if out == nil || len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if fast, ok := out.(fastDecoder); ok && fast.decodeFast(body) {
		keepRaw(out, body)
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return c.cfg.newDecodeError(resp.StatusCode, resp.Header, body, err)
	}
	keepRaw(out, body)
	return nil
}

// fastDecoder is an answer that reads the usual shape of its body in one pass, where encoding/json
// would first validate the whole body and then decode it. It validates what it accepts and declines
// everything else (ok false), which encoding/json then decodes.
type fastDecoder interface{ decodeFast(body []byte) (ok bool) }

// keepRaw hands the body to answers that keep it (ChatCompletion.RawJSON). The body is this call's
// own buffer, so it is kept without a copy.
func keepRaw(out any, body []byte) {
	if k, ok := out.(interface{ keepRaw([]byte) }); ok {
		k.keepRaw(body)
	}
}

// errorIn200 catches the gateway routes that answer an error with a successful status: a body whose
// top level has an "error" key reporting an error (not null, false or empty) is an error whatever the
// status says, and so is "success": false on the routes that report failure that way.
func (c *Client) errorIn200(ar apiRequest, resp *http.Response, body []byte) error {
	if !bytes.Contains(body, []byte(`"error"`)) && !(ar.successFlag && bytes.Contains(body, []byte(`"success"`))) {
		return nil
	}
	var env envelope
	if json.Unmarshal(body, &env) != nil {
		return nil
	}
	failed := ar.successFlag && env.Success != nil && !*env.Success
	if !isErrorValue(env.Error) && !failed {
		return nil
	}
	return c.cfg.newAPIError(resp.StatusCode, resp.Header, body)
}

func (c *Client) policy() transport.Policy {
	p := transport.Policy{
		MaxRetries:    c.cfg.maxRetries,
		MaxRetryAfter: c.cfg.maxRetryAfter,
		BaseWait:      c.cfg.retryBaseWait,
		MaxWait:       c.cfg.retryMaxWait,
		Logger:        c.cfg.logger,
		Redact:        c.cfg.redactError,
	}
	return p
}

// readBody reads a response's body, at most maxResponseBody bytes, into a buffer sized from
// Content-Length when the server sent one, so that a large answer is not copied as it grows.
func readBody(resp *http.Response) ([]byte, error) {
	limited := io.LimitReader(resp.Body, maxResponseBody)
	if n := resp.ContentLength; n > 0 && n <= maxResponseBody {
		buf := bytes.NewBuffer(make([]byte, 0, n+bytes.MinRead))
		_, err := buf.ReadFrom(limited)
		return buf.Bytes(), err
	}
	return io.ReadAll(limited)
}
