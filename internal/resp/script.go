package resp

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
)

// Script is a Lua script sent by its SHA-1 (EVALSHA), and whole (EVAL) when the server does not
// have it yet.
type Script struct {
	src, hash string
}

// NewScript returns the script of src.
func NewScript(src string) *Script {
	sum := sha1.Sum([]byte(src))
	return &Script{src: src, hash: hex.EncodeToString(sum[:])}
}

// Source is the script's text.
func (s *Script) Source() string { return s.src }

// Hash is the script's SHA-1, in hexadecimal, as EVALSHA names it.
func (s *Script) Hash() string { return s.hash }

// Run runs the script on keys and args: by its hash, then whole if the server answers NOSCRIPT.
func (c *Client) Run(ctx context.Context, s *Script, keys []string, args ...any) (any, error) {
	cmd := make([]any, 0, 3+len(keys)+len(args))
	cmd = append(cmd, "EVALSHA", s.hash, len(keys))
	for _, k := range keys {
		cmd = append(cmd, k)
	}
	cmd = append(cmd, args...)
	reply, err := c.Do(ctx, cmd...)
	if e, ok := err.(Error); ok && e.Prefix() == "NOSCRIPT" {
		cmd[0], cmd[1] = "EVAL", s.src
		return c.Do(ctx, cmd...)
	}
	return reply, err
}
