package batch

// Shard is the part of an input file one process runs: the requests whose custom_id hashes to
// Index, of Count parts. The zero Shard is the whole file.
type Shard struct {
	Index, Count int
}

// ParseShard reads "i/n", 0 ≤ i < n.
func ParseShard(s string) (Shard, error) {
	panic("not implemented")
}

// Contains tells whether the request named customID is in the shard.
func (s Shard) Contains(customID string) bool {
	panic("not implemented")
}

// IdempotencyKey is the Idempotency-Key a request is sent with: the same for the same custom_id
// and body, in every run and process.
func IdempotencyKey(customID string, body []byte) string {
	panic("not implemented")
}
