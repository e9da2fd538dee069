// Package redisinfergate shares an infergate-go client's limits and cooldowns between processes,
// through Redis: one quota for every replica of an API behind a load balancer, every worker of a
// pool, on one API key.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
//	limiter := redisinfergate.NewLimiter(rdb, infergate.GatewayQuotas(), redisinfergate.WithLogger(logger))
//	client, err := infergate.NewClient(infergate.WithLimiter(limiter),
//		infergate.WithCooldownStore(redisinfergate.NewCooldownStore(rdb)))
//
// The limiter counts requests and tokens per API key and model group in fixed windows aligned on
// the Unix epoch, as the gateway does (on the routes it counts, chat completions and embeddings; a
// request naming no model in the default quota), in a Lua script that takes the time from Redis, so that the
// machines' clocks do not matter and no two processes can both take a window's last place. A call
// that finds its window full waits for the next one (as long as its context allows). What the
// server says corrects every process: a window it reports used up (X-RateLimit-Remaining-* = 0),
// or a 429's Retry-After, holds back every later call for that key and group until then, and the
// tokens an answer used replace the admission's estimate, as the gateway records them.
//
// Concurrent calls hold leases, which expire after the lease time (DefaultLeaseTime, 30 s) unless
// their holder renews them, as it does every third of that time while its call runs; a process that
// dies gives its places back when they expire.
//
// When Redis cannot be reached, calls go on unlimited, as the gateway's own limiter does when its
// Redis fails: the logger says so once and again when Redis is back, and Limiter.Unlimited counts
// them. Once a call has found it unreachable, the calls of the next second do not ask it (nor wait
// out the redis client's timeouts), and then one call asks it again, as the gateway's circuit
// breaker does. WithFailClosed(true) makes those calls fail instead. Keys are named
// <prefix>:{<api key's name>}:<group>:window, :leases and :hold (<prefix>:{<name>}:cooling:<model>
// for cooldowns); each expires when what it holds does, so nothing is left behind. The braces make
// each API key's keys one hash slot, for Redis Cluster.
package redisinfergate
