package gatewaytest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"

	infergate "github.com/infergate/infergate-go"
)

// CassetteMode says what a cassette does with a request: answer it from the
// file, send it and record the answer, or both.
type CassetteMode int

const (
	// CassetteReplay answers only from the file: a request with no recording
	// fails with a *CassetteMissError and nothing is sent. The file is never
	// written. With INFERGATE_RECORD=1 in the environment it acts as
	// CassetteRecordMissing, so one variable and a key refresh a test suite.
	CassetteReplay CassetteMode = iota
	// CassetteRecord sends every request and records every answer; Close
	// rewrites the file with this session alone.
	CassetteRecord
	// CassetteRecordMissing replays what the file has and sends and records
	// the rest; Close writes the old entries followed by the new ones.
	CassetteRecordMissing
)

// CassetteFormatVersion is the version field of the files this package
// writes; OpenCassette refuses a file of another version.
const CassetteFormatVersion = 1

// Cassette records a client's HTTP exchanges with the gateway into a file and
// replays them, so a test recorded once against the real gateway runs offline
// afterwards. It works as the client's middleware (see Option), so every
// attempt of a retried call is recorded and replayed on its own: a 429 then a
// 200 replays as a 429 then a 200. Requests match by method, path, query and
// body (JSON compared as canonical JSON, a multipart upload by its fields and
// the SHA-256 of its file), never by host, headers or idempotency key; identical
// requests replay in the order they were recorded. Streams are kept as their
// events and replayed one event per write.
//
// No credential reaches the file: Authorization, Cookie, Set-Cookie and
// Idempotency-Key headers are dropped, and every credential the cassette has
// seen (the bearer tokens of the requests, the "key", "api_key",
// "access_token", "token", "secret" and "refresh_token" fields a response
// returns, such as the key Keys.Create makes, and each request's
// idempotency key, in what answered it) is replaced by "REDACTED" wherever it
// appears: in a path, query, header or body, a base64 body decoded, by the
// redactor the SDK's errors use, which finds it raw, JSON-escaped,
// percent-encoded in either case of hex, behind HTML character references,
// or several of these mixed. A replayed Keys.Create therefore answers
// "REDACTED" as the key.
//
// A replay gives the client the bytes the server sent (see
// CassetteResponse), and a body that broke off while recording breaks off
// again.
//
// A request's body is read into memory to be matched (an upload, to be
// hashed), so a cassette suits tests, not large transfers. A Cassette is safe
// for use by several goroutines.
type Cassette struct {
	path string
	mode CassetteMode
	cfg  cassetteConfig

	mu       sync.Mutex
	entries  []*Interaction
	used     []bool
	secrets  map[string]struct{}
	recorded bool // a recording mode added or may add entries
	closed   bool
}

// CassetteOption configures a cassette.
type CassetteOption func(*cassetteConfig)

type cassetteConfig struct {
	scrubbers []func(*Interaction)
	pacing    bool
}

// WithCassetteScrubber adds a function the cassette runs over every
// interaction before writing it, after its own credential scrubbing, to remove
// what only the user knows is private (a customer's name in a prompt, say).
// It also runs over each live request before matching, with an empty
// Response, so that a request whose recording was scrubbed still matches. It
// must be deterministic and safe to call from several goroutines.
func WithCassetteScrubber(f func(*Interaction)) CassetteOption {
	return func(c *cassetteConfig) {
		if f != nil {
			c.scrubbers = append(c.scrubbers, f)
		}
	}
}

// WithRecordedPacing makes a replayed stream send each event at the offset it
// was recorded at, measured from the start of the response, instead of all at
// once, to test timeouts and progress on the gateway's real pace.
func WithRecordedPacing() CassetteOption {
	return func(c *cassetteConfig) { c.pacing = true }
}

// cassetteFile is the document a cassette reads and writes.
type cassetteFile struct {
	Version      int            `json:"version"`
	Interactions []*Interaction `json:"interactions"`
}

// OpenCassette opens the cassette file at path in the given mode. In
// CassetteReplay mode the file must exist; in CassetteRecordMissing mode a
// missing file is an empty cassette; CassetteRecord never reads it. Call Close
// when the test ends, to write the file in the recording modes.
func OpenCassette(path string, mode CassetteMode) (*Cassette, error) {
	return OpenCassetteWith(path, mode)
}

// OpenCassetteWith is OpenCassette with options: a scrubber
// (WithCassetteScrubber) or the recorded pace (WithRecordedPacing).
func OpenCassetteWith(path string, mode CassetteMode, opts ...CassetteOption) (*Cassette, error) {
	if mode < CassetteReplay || mode > CassetteRecordMissing {
		return nil, fmt.Errorf("gatewaytest: OpenCassette %s: unknown mode %d", path, mode)
	}
	if mode == CassetteReplay && os.Getenv("INFERGATE_RECORD") == "1" {
		mode = CassetteRecordMissing
	}
	c := &Cassette{path: path, mode: mode, secrets: map[string]struct{}{}}
	for _, o := range opts {
		o(&c.cfg)
	}
	if mode == CassetteRecord {
		return c, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && mode == CassetteRecordMissing {
		return c, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("gatewaytest: OpenCassette: %w; record it by running the test once with INFERGATE_RECORD=1 and a key in INFERGATE_API_KEY", err)
	}
	if err != nil {
		return nil, fmt.Errorf("gatewaytest: OpenCassette: %w", err)
	}
	entries, err := readCassette(data)
	if err != nil {
		return nil, fmt.Errorf("gatewaytest: OpenCassette %s: %w", path, err)
	}
	c.entries = entries
	c.used = make([]bool, len(entries))
	return c, nil
}

// readCassette reads a cassette file's interactions: those of a file of this
// version, each with a response status.
func readCassette(data []byte) ([]*Interaction, error) {
	var f cassetteFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	if f.Version != CassetteFormatVersion {
		return nil, fmt.Errorf("format version %d, want %d", f.Version, CassetteFormatVersion)
	}
	for i, in := range f.Interactions {
		if in == nil || in.Response.Status < 100 || in.Response.Status > 999 {
			return nil, fmt.Errorf("interaction %d has no valid response status", i)
		}
	}
	return f.Interactions, nil
}

// Mode returns the mode the cassette works in, after INFERGATE_RECORD.
func (c *Cassette) Mode() CassetteMode { return c.mode }

// Option puts the cassette on a client, NewClient(cassette.Option(), …), or
// on one call. It answers in place of the network, so middleware given after
// it (or on a call, when it is on the client) runs only for requests that are
// really sent; middleware given before it sees replayed answers too. It is
// the client's stand-in (infergate.WithStandIn): a replayed call needs no
// credential, and the cassette's own errors, such as a *CassetteMissError,
// are the call's error as they are.
func (c *Cassette) Option() infergate.Option {
	return infergate.WithStandIn(c.roundTrip)
}

// Close writes the file in the recording modes, credentials scrubbed; it
// does nothing in CassetteReplay mode. A stream still being read is written
// as far as it was read, as broken off there. The file it writes always
// opens: if a scrubber left an interaction that would not (one without a
// valid status, say), Close writes nothing and says so. Closing twice does
// nothing.
func (c *Cassette) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.mode == CassetteReplay {
		c.closed = true
		return nil
	}
	c.closed = true
	f := cassetteFile{Version: CassetteFormatVersion, Interactions: make([]*Interaction, len(c.entries))}
	for i, e := range c.entries {
		in := e.clone()
		c.clean(in, c.redactor(e.idempotencyKey))
		f.Interactions[i] = in
	}
	var buf bytes.Buffer
	if err := newFileEncoder(&buf).Encode(f); err != nil {
		return fmt.Errorf("gatewaytest: cassette %s: %w", c.path, err)
	}
	if _, err := readCassette(buf.Bytes()); err != nil {
		return fmt.Errorf("gatewaytest: cassette %s: not written, it would not open: %w", c.path, err)
	}
	if err := os.WriteFile(c.path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("gatewaytest: cassette: %w", err)
	}
	return nil
}

// roundTrip is the cassette's middleware: it answers from the file when it
// can and otherwise, in a recording mode, sends the request and records it.
func (c *Cassette) roundTrip(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	rec, err := newCassetteRequest(req)
	if err != nil {
		return nil, fmt.Errorf("gatewaytest: cassette: reading the request: %w", err)
	}
	key := req.Header.Get("Idempotency-Key")
	c.mu.Lock()
	c.learnRequestSecrets(req)
	set := c.redactor(key)
	c.mu.Unlock()
	probe := &Interaction{Request: rec.clone()}
	c.clean(probe, set)

	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, fmt.Errorf("gatewaytest: cassette %s is closed", c.path)
	}
	if c.mode != CassetteRecord {
		if i := c.match(probe.Request); i >= 0 {
			c.used[i] = true
			in := c.entries[i]
			c.mu.Unlock()
			return in.Response.replay(req, c.cfg.pacing), nil
		}
		if c.mode == CassetteReplay {
			miss := c.miss(probe.Request)
			c.mu.Unlock()
			return nil, miss
		}
	}
	c.mu.Unlock()

	resp, err := next(req)
	if err != nil || resp == nil || resp.StatusCode < 100 || resp.StatusCode > 999 {
		return resp, err // no answer a file can hold
	}
	return c.record(rec, key, resp), nil
}
