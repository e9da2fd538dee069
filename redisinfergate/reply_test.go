package redisinfergate_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/redisinfergate"
	"github.com/redis/go-redis/v9"
)

// fakeRedis speaks RESP on loopback: it answers each command of the limiter or the store with
// reply's bytes and closes the connection, so that whatever it sent cannot confuse the next one.
type fakeRedis struct {
	ln    net.Listener
	reply func(cmd []string) string
	wg    sync.WaitGroup
}

func startFakeRedis(t testing.TB, reply func(cmd []string) string) *fakeRedis {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeRedis{ln: ln, reply: reply}
	f.wg.Go(f.serve)
	t.Cleanup(func() { ln.Close(); f.wg.Wait() })
	return f
}

func (f *fakeRedis) serve() {
	for {
		conn, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.wg.Go(func() {
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(5 * time.Second))
			r := bufio.NewReader(conn)
			for {
				cmd, err := readCommand(r)
				if err != nil {
					return
				}
				switch strings.ToUpper(cmd[0]) {
				case "HELLO": // an old Redis: the client goes on in RESP2
					io.WriteString(conn, "-ERR unknown command 'HELLO'\r\n")
					continue
				case "PING":
					io.WriteString(conn, "+PONG\r\n")
					continue
				}
				if out := f.reply(cmd); out != "" {
					io.WriteString(conn, out)
				}
				return
			}
		})
	}
}

func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "*") {
		return nil, errors.New("not a command")
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil || n < 1 {
		return nil, errors.New("not a command")
	}
	cmd := make([]string, n)
	for i := range cmd {
		head, err := r.ReadString('\n')
		if err != nil || !strings.HasPrefix(head, "$") {
			return nil, errors.New("not a bulk string")
		}
		size, err := strconv.Atoi(strings.TrimSpace(head[1:]))
		if err != nil || size < 0 {
			return nil, errors.New("not a bulk string")
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		cmd[i] = string(buf[:size])
	}
	return cmd, nil
}

// fakeClient is a client of f that sends nothing before the limiter's commands and does not retry.
func fakeClient(t testing.TB, f *fakeRedis, readTimeout time.Duration) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: f.ln.Addr().String(), Protocol: 2, DisableIdentity: true,
		MaxRetries: -1, ReadTimeout: readTimeout, PoolSize: 1})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// oddReplies are answers to a script that a Redis running it never sends.
var oddReplies = map[string]string{
	"status":               "+OK\r\n",
	"integer":              ":1\r\n",
	"nil":                  "$-1\r\n",
	"error":                "-ERR Error running script (call to f_0123): @user_script:1: boom\r\n",
	"short array":          "*2\r\n:1\r\n:0\r\n",
	"long array":           "*4\r\n:1\r\n:0\r\n:0\r\n:0\r\n",
	"string element":       "*3\r\n:1\r\n:0\r\n$4\r\n1000\r\n",
	"nested array":         "*3\r\n:1\r\n:0\r\n*1\r\n:0\r\n",
	"admitted with a wait": "*3\r\n:1\r\n:5\r\n:0\r\n",
	"wait of 0":            "*3\r\n:0\r\n:0\r\n:2\r\n",
	"negative wait":        "*3\r\n:0\r\n:-5\r\n:2\r\n",
	"unknown reason":       "*3\r\n:0\r\n:100\r\n:9\r\n",
	"negative start":       "*3\r\n:1\r\n:0\r\n:-1\r\n",
	"not RESP":             "hello\r\n",
}

// An answer the limiter does not expect is an error wrapping ErrUnexpectedReply: not a panic, not a
// hang, not a call let through.
func TestUnexpectedRepliesAreErrors(t *testing.T) {
	t.Parallel()
	for name, reply := range oddReplies {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := startFakeRedis(t, func([]string) string { return reply })
			l := redisinfergate.NewLimiter(fakeClient(t, f, time.Second), infergate.Quotas{Default: infergate.Quota{Requests: 1, Concurrent: 1}})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			p, err := l.Acquire(ctx, infergate.LimitRequest{Key: "k", Route: "/chat/completions"})
			if !errors.Is(err, redisinfergate.ErrUnexpectedReply) || p != nil {
				t.Fatalf("Acquire = %v, %v; want an error wrapping ErrUnexpectedReply", p, err)
			}
			if l.Unlimited() != 0 {
				t.Fatalf("Unlimited() = %d; an odd answer is not an unreachable Redis", l.Unlimited())
			}
		})
	}
}

// A Redis that accepts the command and never answers is one that cannot be reached, once the
// client's read timeout has passed.
func TestSilentRedisFailsOpen(t *testing.T) {
	t.Parallel()
	f := startFakeRedis(t, func([]string) string { return "" })
	l := redisinfergate.NewLimiter(fakeClient(t, f, 200*time.Millisecond), infergate.Quotas{Default: infergate.Quota{Requests: 1}})
	p := mustAdmit(t, l, infergate.LimitRequest{Key: "k", Route: "/chat/completions"}, 10*time.Second)
	p.Release(infergate.LimitReport{})
	if l.Unlimited() != 1 {
		t.Fatalf("Unlimited() = %d; want 1", l.Unlimited())
	}
}

// The cooldown store's odd answers are errors too.
func TestCooldownStoreUnexpectedReplies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct{ name, reply string }{
		{"SET answers an integer", ":1\r\n"},
		{"SET answers nil", "$-1\r\n"},
		{"MGET answers too few", "*1\r\n$1\r\n1\r\n"},
		{"MGET answers an integer element", "*2\r\n:1\r\n$-1\r\n"},
		{"MGET answers a status", "+OK\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startFakeRedis(t, func([]string) string { return tc.reply })
			s := redisinfergate.NewCooldownStore(fakeClient(t, f, time.Second))
			var err error
			if strings.HasPrefix(tc.name, "SET") {
				err = s.Cool(ctx, "k", "m", time.Second)
			} else {
				_, err = s.Cooling(ctx, "k", []string{"a", "b"})
			}
			if !errors.Is(err, redisinfergate.ErrUnexpectedReply) {
				t.Fatalf("error %v; want one wrapping ErrUnexpectedReply", err)
			}
		})
	}
}

// Whatever bytes come back, Acquire returns (within its context) and Release does not panic.
func FuzzAcquireReply(f *testing.F) {
	for _, r := range oddReplies {
		f.Add(r)
	}
	f.Add("*3\r\n:1\r\n:0\r\n:1000\r\n")
	f.Add("*3\r\n:0\r\n:1\r\n:3\r\n")
	var reply sync.Map
	fake := startFakeRedis(f, func(cmd []string) string {
		v, _ := reply.Load("r")
		s, _ := v.(string)
		return s
	})
	rdb := redis.NewClient(&redis.Options{Addr: fake.ln.Addr().String(), Protocol: 2, DisableIdentity: true,
		MaxRetries: -1, ReadTimeout: 50 * time.Millisecond})
	f.Cleanup(func() { rdb.Close() })
	l := redisinfergate.NewLimiter(rdb, infergate.Quotas{Default: infergate.Quota{Requests: 3, Tokens: 100, Concurrent: 2}},
		redisinfergate.WithLeaseTime(time.Second))
	f.Fuzz(func(t *testing.T, r string) {
		reply.Store("r", r)
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		defer cancel()
		p, err := l.Acquire(ctx, infergate.LimitRequest{Key: "k", Tokens: 10, Route: "/chat/completions"})
		if err == nil {
			p.Release(infergate.LimitReport{StatusCode: 429, RetryAfter: time.Second, Usage: &infergate.Usage{TotalTokens: 5}})
		}
	})
}

// Once Redis could not be reached, the calls that follow go on at once rather than each waiting
// out the client's timeouts: Redis is asked again a while later, not by every call.
func TestUnreachableRedisIsNotAskedByEveryCall(t *testing.T) {
	t.Parallel()
	f := startFakeRedis(t, func([]string) string { return "" })
	rdb := fakeClient(t, f, 200*time.Millisecond)
	sent := new(atomic.Int64)
	rdb.AddHook(countHook{sent})
	l := redisinfergate.NewLimiter(rdb, infergate.Quotas{Default: infergate.Quota{Requests: 1, Concurrent: 1}})
	var first int64
	for i := range 3 {
		p := mustAdmit(t, l, infergate.LimitRequest{Key: "k", Route: "/chat/completions"}, 10*time.Second)
		p.Release(infergate.LimitReport{StatusCode: 429, RetryAfter: time.Second})
		if i == 0 {
			first = sent.Load()
		}
	}
	if n := l.Unlimited(); n != 3 {
		t.Fatalf("Unlimited() = %d; want 3", n)
	}
	if n := sent.Load() - first; n != 0 {
		t.Fatalf("%d commands sent after Redis did not answer the first call's; want none", n)
	}
}
