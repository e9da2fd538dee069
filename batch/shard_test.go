package batch_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"testing/quick"

	"github.com/infergate/infergate-go/batch"
)

func TestParseShard(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"0/1", "0/2", "1/2", "6/7", "99/100"} {
		sh, err := batch.ParseShard(s)
		if err != nil || sh.String() != s {
			t.Errorf("%q: %+v, %v", s, sh, err)
		}
	}
	for _, s := range []string{"2/2", "-1/2", "a/b", "0/0", "1", "", "/", "1/", "/2", "1/2/3", "1/-2", " 1/2", "0x1/2", "1/99999999999999999999"} {
		if sh, err := batch.ParseShard(s); err == nil {
			t.Errorf("%q: %+v, no error", s, sh)
		}
	}
}

// TestShardsPartitionIDs checks that every custom_id is in exactly one of n shards, for random ids
// and n, and that the zero Shard holds them all.
func TestShardsPartitionIDs(t *testing.T) {
	t.Parallel()
	partition := func(id string, n uint8) bool {
		count := int(n%16) + 1
		in := 0
		for i := range count {
			if (batch.Shard{Index: i, Count: count}).Contains(id) {
				in++
			}
		}
		return in == 1 && batch.Shard{}.Contains(id)
	}
	if err := quick.Check(partition, &quick.Config{MaxCount: 2000}); err != nil {
		t.Error(err)
	}
}

// TestShardsAreEven splits sequential ids, the usual kind, into 4 shards of about a quarter each.
func TestShardsAreEven(t *testing.T) {
	t.Parallel()
	const n, ids = 4, 40000
	var sizes [n]int
	for i := range ids {
		for s := range n {
			if (batch.Shard{Index: s, Count: n}).Contains(fmt.Sprint("request-", i)) {
				sizes[s]++
			}
		}
	}
	for s, size := range sizes {
		if size < ids/n*9/10 || size > ids/n*11/10 {
			t.Errorf("shard %d has %d of %d", s, size, ids)
		}
	}
}

// TestShardIsStable pins the hash, which processes on other machines must share. The shards were
// computed apart from this code, in Python: int.from_bytes(sha256(id).digest()[:8], "big") % 3.
func TestShardIsStable(t *testing.T) {
	t.Parallel()
	got := ""
	for _, id := range []string{"a", "b", "c", "request-1", "request-2"} {
		for i := range 3 {
			if (batch.Shard{Index: i, Count: 3}).Contains(id) {
				got += fmt.Sprint(i)
			}
		}
	}
	if want := "11202"; got != want {
		t.Errorf("shards %s, want %s", got, want)
	}
}

// TestIdempotencyKey checks that the key depends on the id and the body, with no pair sharing one
// because of where the one ends and the other begins. The pinned key was computed in Python:
// sha256(b'a\x00{"x":1}').hexdigest().
func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	k := batch.IdempotencyKey("a", []byte(`{"x":1}`))
	if want := "infergate-batch-019cf5232eefc8f8b0bc531938bba9cbaba5797f6ea38a4c9bd1416841643cde"; k != want {
		t.Errorf("key %q, want %q", k, want)
	}
	r := rand.New(rand.NewPCG(1, 2))
	pairs := map[string]string{}
	for range 2000 {
		id, body := fmt.Sprint(r.Uint32()%20), fmt.Sprint(r.Uint32()%20)
		if r.Uint32()%2 == 0 { // move the boundary: "1" + "23" against "12" + "3"
			id, body = id+body[:1], body[1:]
		}
		key := batch.IdempotencyKey(id, []byte(body))
		pair := id + "\x00" + body
		if was, ok := pairs[key]; ok && was != pair {
			t.Fatalf("%q and %q share %s", was, pair, key)
		}
		pairs[key] = pair
	}
}
