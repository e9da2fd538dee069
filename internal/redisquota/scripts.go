package redisquota

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/infergate/infergate-go/internal/resp"
)

// The scripts take the time from Redis (TIME, in milliseconds), so that every process counts in
// the same windows whatever its own clock says. A window starts at now / window * window, on the
// Unix epoch, as the gateway's do.

// acquireScript admits one call or says how long to wait. It checks everything before it changes
// anything, so that a call refused for one bound takes nothing from the others. The leases' key
// lives as long as its longest lease (a process may be given a shorter lease time than another):
// this script and renewScript only ever push its expiry back.
//
// KEYS: window, leases, hold. ARGV: requests, tokens, concurrent (the quota; 0 is no bound), window
// (ms), the call's tokens, its lease id, the lease time (ms), 1 when the gateway counts the call's
// route (the server's hold applies to it then), else 0.
// Reply: {1, 0, window start} when admitted, {0, ms to wait, reason} when not (1 the server's hold,
// 2 the window is full, 3 every place is leased).
var acquireScript = resp.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local hold = tonumber(redis.call('GET', KEYS[3]))
if ARGV[8] == '1' and hold and hold > now then
  return {0, hold - now, 1}
end
local rl, tl, cl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local win, tokens = tonumber(ARGV[4]), tonumber(ARGV[5])
local start = math.floor(now / win) * win
local counted = rl > 0 or tl > 0
local reqs, toks = 0, 0
if counted then
  local cur = redis.call('HMGET', KEYS[1], 'start', 'requests', 'tokens')
  if tonumber(cur[1]) == start then
    reqs = tonumber(cur[2]) or 0
    toks = tonumber(cur[3]) or 0
  end
  if (rl > 0 and reqs + 1 > rl) or (tl > 0 and tokens > 0 and toks + tokens > tl) then
    return {0, start + win - now, 2}
  end
end
if cl > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  if redis.call('ZCARD', KEYS[2]) >= cl then
    local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    return {0, math.max(1, tonumber(first[2]) - now), 3}
  end
  local lease = tonumber(ARGV[7])
  redis.call('ZADD', KEYS[2], now + lease, ARGV[6])
  if redis.call('PTTL', KEYS[2]) < lease then
    redis.call('PEXPIRE', KEYS[2], lease)
  end
end
if counted then
  redis.call('HSET', KEYS[1], 'start', start, 'requests', reqs + 1, 'tokens', toks + tokens)
  redis.call('PEXPIRE', KEYS[1], start + win - now)
end
return {1, 0, start}
`)

// releaseScript gives a lease back, puts the tokens the answer used in place of the estimate
// counted at admission (the gateway counts what was used, in the window where the call ended), and
// holds every later call back when the server asked for it.
//
// KEYS: window, leases, hold. ARGV: the lease id ("" for none), the admission's window start, the
// window (ms), the estimate counted, the tokens used (-1 when unknown or not counted), the hold (ms,
// 0 for none).
var releaseScript = resp.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if ARGV[1] ~= '' then
  redis.call('ZREM', KEYS[2], ARGV[1])
end
local used = tonumber(ARGV[5])
if used >= 0 then
  local win = tonumber(ARGV[3])
  local start = math.floor(now / win) * win
  local cur = redis.call('HMGET', KEYS[1], 'start', 'tokens')
  if tonumber(cur[1]) == start then
    local delta = used
    if start == tonumber(ARGV[2]) then
      delta = used - tonumber(ARGV[4])
    end
    redis.call('HSET', KEYS[1], 'tokens', math.max(0, (tonumber(cur[2]) or 0) + delta))
  elseif used > 0 then
    redis.call('HSET', KEYS[1], 'start', start, 'requests', 0, 'tokens', used)
    redis.call('PEXPIRE', KEYS[1], start + win - now)
  end
end
local hold = tonumber(ARGV[6])
if hold > 0 then
  local till = now + hold
  local cur = tonumber(redis.call('GET', KEYS[3]))
  if not cur or cur < till then
    redis.call('SET', KEYS[3], till, 'PX', hold)
  end
end
return 1
`)

// renewScript extends a lease still held; it never brings back one that expired and was taken.
//
// KEYS: leases. ARGV: the lease id, the lease time (ms). Reply: 1 renewed, 0 gone.
var renewScript = resp.NewScript(`
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return 0
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
if redis.call('PTTL', KEYS[1]) < lease then
  redis.call('PEXPIRE', KEYS[1], lease)
end
return 1
`)

// Why a call was not admitted, in acquireScript's reply.
const (
	waitHold       = 1
	waitWindow     = 2
	waitConcurrent = 3
)

// admission is acquireScript's reply.
type admission struct {
	admitted bool
	waitMS   int64 // when not admitted
	reason   int64 // when not admitted
	start    int64 // the window's start, when admitted
}

func parseAdmission(reply any) (admission, error) {
	v, err := ints(reply, 3)
	if err != nil {
		return admission{}, err
	}
	switch {
	case v[0] == 1 && v[1] == 0 && v[2] >= 0:
		return admission{admitted: true, start: v[2]}, nil
	case v[0] == 0 && v[1] > 0 && v[2] >= waitHold && v[2] <= waitConcurrent:
		return admission{waitMS: v[1], reason: v[2]}, nil
	}
	return admission{}, fmt.Errorf("%w: %v", ErrUnexpectedReply, v)
}

// parseFlag reads a script's reply of 0 or 1.
func parseFlag(reply any) (bool, error) {
	n, ok := reply.(int64)
	if !ok || (n != 0 && n != 1) {
		return false, unexpected(reply)
	}
	return n == 1, nil
}

func ints(reply any, n int) ([]int64, error) {
	list, ok := reply.([]any)
	if !ok || len(list) != n {
		return nil, unexpected(reply)
	}
	out := make([]int64, n)
	for i, e := range list {
		if out[i], ok = e.(int64); !ok {
			return nil, unexpected(reply)
		}
	}
	return out, nil
}

func unexpected(reply any) error {
	s := fmt.Sprintf("%T %v", reply, reply)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return fmt.Errorf("%w: %s", ErrUnexpectedReply, s)
}

// classify turns a failed command's error into ErrUnreachable or ErrUnexpectedReply, both wrapping
// it. Redis cannot be reached when the connection fails, times out or is refused, when the client
// is closed, or when the server says it cannot serve now (loading, a failover, a busy script); any
// other error answer, or bytes that are not the protocol, are an answer the limiter did not expect.
func classify(err error) error {
	if errors.Is(err, ErrUnexpectedReply) || errors.Is(err, ErrUnreachable) {
		return err
	}
	if unreachable(err) {
		return fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
	return fmt.Errorf("%w: %w", ErrUnexpectedReply, err)
}

func unreachable(err error) bool {
	var answer serverError
	if errors.As(err, &answer) {
		msg := strings.TrimPrefix(answer.Error(), "ERR ")
		for _, p := range []string{"LOADING", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN", "BUSY", "READONLY", "MAXCLIENTS", "max number of clients"} {
			if strings.HasPrefix(msg, p) {
				return true
			}
		}
		return false
	}
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, ErrClosed) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// serverError is an error answer of the server, as both resp's errors and go-redis's mark theirs.
type serverError interface {
	error
	RedisError()
}
