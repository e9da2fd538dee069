package batch

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Shard is the part of an input file one process runs: the requests whose custom_id hashes to
// Index, of Count parts. The zero Shard is the whole file.
//
// The hash is the first 8 bytes of the SHA-256 of the custom_id's bytes, read as a big-endian
// unsigned integer, modulo Count: the same in every process and on every machine, and spread
// evenly whatever the ids look like ("req-1", "req-2", ...). Each of the Count shards of a file
// is run by its own process writing its own output file.
type Shard struct {
	Index int // from 0 to Count-1
	Count int // the shards the file is split into
}

// ParseShard reads "i/n", 0 ≤ i < n. Anything else ("2/2", "-1/2", "a/b", "0/0", "1") is an error.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("batch: shard %q is not i/n", s)
	}
	i, erri := strconv.Atoi(is)
	n, errn := strconv.Atoi(ns)
	switch {
	case erri != nil || errn != nil:
		return Shard{}, fmt.Errorf("batch: shard %q is not i/n with whole numbers", s)
	case n < 1:
		return Shard{}, fmt.Errorf("batch: shard %q: n must be at least 1", s)
	case i < 0 || i >= n:
		return Shard{}, fmt.Errorf("batch: shard %q: i must be from 0 to %d", s, n-1)
	}
	return Shard{Index: i, Count: n}, nil
}

// String writes the shard as ParseShard reads it; "" for the zero Shard.
func (s Shard) String() string {
	if s == (Shard{}) {
		return ""
	}
	return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count)
}

// check refuses a Shard that ParseShard would not have made (the zero Shard is fine).
func (s Shard) check() error {
	if s == (Shard{}) || (s.Count > 0 && s.Index >= 0 && s.Index < s.Count) {
		return nil
	}
	return fmt.Errorf("batch: shard %d/%d: want 0 ≤ index < count", s.Index, s.Count)
}

// Contains tells whether the request named customID is in the shard. Every custom_id is in exactly
// one shard of n; every one is in the zero Shard.
func (s Shard) Contains(customID string) bool {
	if s.Count <= 1 {
		return s.Count <= 0 || s.Index == 0
	}
	sum := sha256.Sum256([]byte(customID))
	return binary.BigEndian.Uint64(sum[:8])%uint64(s.Count) == uint64(s.Index)
}

// keyPrefix marks the keys a batch sends, apart from the random ones the client makes.
const keyPrefix = "infergate-batch-"

// IdempotencyKey is the Idempotency-Key a request is sent with: the same for the same custom_id
// and body, in every run and process. It is "infergate-batch-" and the hex SHA-256 of the custom_id, a zero
// byte and the body's bytes as the input line has them, so that no two (custom_id, body) pairs
// share one.
func IdempotencyKey(customID string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(customID))
	h.Write([]byte{0})
	h.Write(body)
	return keyPrefix + hex.EncodeToString(h.Sum(nil))
}
