package redisquota_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/internal/redisquota"
)

// fakeRedis answers PING with PONG and every other command with reply's bytes, after which it
// closes the connection, so that what it sent cannot confuse the next command.
func fakeRedis(t testing.TB, reply func() string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer conn.Close()
				conn.SetDeadline(time.Now().Add(10 * time.Second))
				r := bufio.NewReader(conn)
				for {
					name, err := commandName(r)
					if err != nil {
						return
					}
					if name == "PING" {
						io.WriteString(conn, "+PONG\r\n")
						continue
					}
					io.WriteString(conn, reply())
					return
				}
			})
		}
	})
	return ln.Addr().String()
}

// commandName reads a command and returns its name.
func commandName(r *bufio.Reader) (string, error) {
	var args []string
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "*") {
		return "", errors.New("not a command")
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil || n < 1 {
		return "", errors.New("not a command")
	}
	for range n {
		head, err := r.ReadString('\n')
		if err != nil || !strings.HasPrefix(head, "$") {
			return "", errors.New("not a bulk string")
		}
		size, err := strconv.Atoi(strings.TrimSpace(head[1:]))
		if err != nil || size < 0 {
			return "", errors.New("not a bulk string")
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		args = append(args, string(buf[:size]))
	}
	return strings.ToUpper(args[0]), nil
}

// oddReplies are answers to the limiter's script that a Redis running it never sends.
var oddReplies = map[string]string{
	"status":               "+OK\r\n",
	"integer":              ":1\r\n",
	"nil":                  "$-1\r\n",
	"RESP3 null":           "_\r\n",
	"error":                "-ERR Error running script (call to f_0123): @user_script:1: boom\r\n",
	"short array":          "*2\r\n:1\r\n:0\r\n",
	"long array":           "*4\r\n:1\r\n:0\r\n:0\r\n:0\r\n",
	"string element":       "*3\r\n:1\r\n:0\r\n$4\r\n1000\r\n",
	"nested array":         "*3\r\n:1\r\n:0\r\n*1\r\n:0\r\n",
	"admitted with a wait": "*3\r\n:1\r\n:5\r\n:0\r\n",
	"wait of 0":            "*3\r\n:0\r\n:0\r\n:2\r\n",
	"unknown reason":       "*3\r\n:0\r\n:100\r\n:9\r\n",
	"not RESP":             "hello\r\n",
	"a huge length":        "*9999999999\r\n",
}

// Through internal/resp as through go-redis, an answer the limiter does not expect is an error
// wrapping ErrUnexpectedReply: not a panic, not a hang, not a call let through.
func TestUnexpectedRepliesAreErrors(t *testing.T) {
	t.Parallel()
	for name, reply := range oddReplies {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			addr := fakeRedis(t, func() string { return reply })
			l, _, closeRedis, err := redisquota.Dial(t.Context(), "redis://"+addr, infergate.Quotas{Default: infergate.Quota{Requests: 1, Concurrent: 1}})
			if err != nil {
				t.Fatal(err)
			}
			defer closeRedis()
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			p, err := l.Acquire(ctx, infergate.LimitRequest{Key: "k", Route: "/chat/completions"})
			if !errors.Is(err, redisquota.ErrUnexpectedReply) || p != nil {
				t.Fatalf("Acquire = %v, %v; want an error wrapping ErrUnexpectedReply", p, err)
			}
			if n := l.(*redisquota.Limiter).Unlimited(); n != 0 {
				t.Fatalf("Unlimited() = %d; an odd answer is not an unreachable Redis", n)
			}
		})
	}
}

// The cooldown store's odd answers are errors too.
func TestCooldownStoreUnexpectedReplies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, reply string }{
		{"SET answers an integer", ":1\r\n"},
		{"SET answers nil", "$-1\r\n"},
		{"MGET answers too few", "*1\r\n$1\r\n1\r\n"},
		{"MGET answers an integer element", "*2\r\n:1\r\n$-1\r\n"},
		{"MGET answers a status", "+OK\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			addr := fakeRedis(t, func() string { return tc.reply })
			_, s, closeRedis, err := redisquota.Dial(t.Context(), "redis://"+addr, infergate.Quotas{})
			if err != nil {
				t.Fatal(err)
			}
			defer closeRedis()
			if strings.HasPrefix(tc.name, "SET") {
				err = s.Cool(t.Context(), "k", "m", time.Second)
			} else {
				_, err = s.Cooling(t.Context(), "k", []string{"a", "b"})
			}
			if !errors.Is(err, redisquota.ErrUnexpectedReply) {
				t.Fatalf("error %v; want one wrapping ErrUnexpectedReply", err)
			}
		})
	}
}

// Whatever bytes come back, Acquire returns within its context and Release does not panic.
func FuzzAcquireReply(f *testing.F) {
	for _, r := range oddReplies {
		f.Add(r)
	}
	f.Add("*3\r\n:1\r\n:0\r\n:1000\r\n")
	f.Add("*3\r\n:0\r\n:1\r\n:3\r\n")
	var reply sync.Map
	addr := fakeRedis(f, func() string {
		v, _ := reply.Load("r")
		s, _ := v.(string)
		return s
	})
	l, _, closeRedis, err := redisquota.Dial(f.Context(), "redis://"+addr,
		infergate.Quotas{Default: infergate.Quota{Requests: 3, Tokens: 100, Concurrent: 2}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { closeRedis() })
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
