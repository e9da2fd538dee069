package redisquota

import "strings"

// escaper keeps the parts of a key's name apart whatever they contain: a credential's name or a
// group's holding ':' or braces cannot make two quotas share a key, nor move a key off the slot
// of its credential's others in a cluster.
var escaper = strings.NewReplacer("%", "%25", ":", "%3A", "{", "%7B", "}", "%7D")

// quotaKeys are the keys of one credential's quota for one group. The credential's name is the
// hash tag, so that a script touching all three runs on one node of a cluster.
type quotaKeys struct {
	window string // hash: the current window's start, requests and tokens
	leases string // sorted set: lease ids by expiry
	hold   string // string: until when (Redis time, ms) the server asked for no calls
}

func newQuotaKeys(prefix, key, group string) quotaKeys {
	base := prefix + ":{" + escaper.Replace(key) + "}:" + escaper.Replace(group) + ":"
	return quotaKeys{window: base + "window", leases: base + "leases", hold: base + "hold"}
}

func (k quotaKeys) list() []string { return []string{k.window, k.leases, k.hold} }

// cooldownKey is where a model's cooldown for a credential's callers is kept.
func cooldownKey(prefix, key, model string) string {
	return prefix + ":{" + escaper.Replace(key) + "}:cooling:" + escaper.Replace(model)
}
