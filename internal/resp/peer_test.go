package resp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// peer is a server on loopback that answers each command of each connection with what answer
// returns for it (conn counts connections from 0, cmd the commands of that connection), and closes
// the connection after writing an answer that close says to. It counts the commands it read.
type peer struct {
	addr     string
	commands atomic.Int64
}

func listen(t *testing.T, answer func(conn, cmd int) (reply string, close bool)) *peer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &peer{addr: ln.Addr().String()}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for conn := 0; ; conn++ {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer nc.Close()
				r := bufio.NewReader(nc)
				for cmd := 0; ; cmd++ {
					if _, err := readReply(r); err != nil { // a command is an array of bulk strings
						return
					}
					p.commands.Add(1)
					reply, closing := answer(conn, cmd)
					if _, err := io.WriteString(nc, reply); err != nil || closing {
						return
					}
				}
			}()
		}
	}()
	return p
}

// A reply cut short by the server closing the connection is an error, and the command, which the
// server may have run, is not sent again: even on a connection taken from the pool, where a
// connection closed before the command reached it is tried again.
func TestReplyCutShortIsNotSentAgain(t *testing.T) {
	t.Parallel()
	for _, cut := range []string{"*2\r\n:1\r\n", "*2\r\n", ":1", "$5\r\nhel", "|1\r\n+a\r\n"} {
		t.Run(fmt.Sprintf("%q", cut), func(t *testing.T) {
			t.Parallel()
			p := listen(t, func(conn, cmd int) (string, bool) {
				if conn == 0 && cmd == 1 {
					return cut, true
				}
				return "*2\r\n:1\r\n:2\r\n", false
			})
			c := New(Options{Addr: p.addr})
			defer c.Close()
			if _, err := c.Do(t.Context(), "INCR", "k"); err != nil {
				t.Fatal(err)
			}
			v, err := c.Do(t.Context(), "INCR", "k")
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("a reply cut short: %v, %v; want io.ErrUnexpectedEOF", v, err)
			}
			if n := p.commands.Load(); n != 2 {
				t.Errorf("the server read %d commands; want 2, the second not sent again", n)
			}
		})
	}
}

// A RESP3 attribute describes the reply that follows it: attributes one after the other count as
// nesting, so that a server cannot make the reader recurse without bound.
func TestAttributesAreBounded(t *testing.T) {
	t.Parallel()
	_, err := read(strings.Repeat("|0\r\n", maxDepth+2) + ":1\r\n")
	if !errors.Is(err, ErrProtocol) {
		t.Errorf("%d attributes in a row: %v; want ErrProtocol", maxDepth+2, err)
	}
	if v, err := read(strings.Repeat("|0\r\n", 3) + ":1\r\n"); err != nil || v != int64(1) {
		t.Errorf("3 attributes before :1 = %v, %v; want 1", v, err)
	}
}

// A command whose context has ended is not sent, even when a connection is idle in the pool.
func TestEndedContextSendsNothing(t *testing.T) {
	t.Parallel()
	p := listen(t, func(int, int) (string, bool) { return "+OK\r\n", false })
	c := New(Options{Addr: p.addr})
	defer c.Close()
	if _, err := c.Do(t.Context(), "PING"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for range 50 {
		if _, err := c.Do(ctx, "INCR", "k"); !errors.Is(err, context.Canceled) {
			t.Fatalf("a call with an ended context: %v; want context.Canceled", err)
		}
	}
	if _, err := c.Do(t.Context(), "PING"); err != nil {
		t.Fatal(err)
	}
	if n := p.commands.Load(); n != 2 {
		t.Errorf("the server read %d commands; want 2, none with the ended context", n)
	}
}

// A client prints its options' password as its mark, whatever the verb, although its options are
// not exported.
func TestClientNeverPrintsThePassword(t *testing.T) {
	t.Parallel()
	o, err := ParseURL("redis://user:hunter2@localhost/1")
	if err != nil {
		t.Fatal(err)
	}
	c := New(o)
	defer c.Close()
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X"} {
		for _, v := range []any{c, o, &o, o.Password} {
			s := fmt.Sprintf(verb, v)
			if strings.Contains(s, "hunter2") || strings.Contains(s, fmt.Sprintf(verb[:len(verb)-1]+"x", "hunter2")) {
				t.Errorf("Sprintf(%q, %T) = %s", verb, v, s)
			}
		}
	}
}

// A command the client cannot write is refused before anything is sent, and the connection it
// took from the pool goes back to it.
func TestUnwritableArgumentKeepsTheConnection(t *testing.T) {
	t.Parallel()
	var conns atomic.Int64
	p := listen(t, func(conn, _ int) (string, bool) {
		conns.Store(int64(conn) + 1)
		return "+PONG\r\n", false
	})
	c := New(Options{Addr: p.addr})
	defer c.Close()
	for range 3 {
		if _, err := c.Do(t.Context(), "PING"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Do(t.Context(), "SET", "k", struct{}{}); err == nil || !strings.Contains(err.Error(), "argument 2") {
			t.Fatalf("an argument of type struct{}: %v; want an error naming it", err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections; want 1, kept across the refused commands", n)
	}
}

// Bytes a server sends after a reply answer no command: the call is an error, and the connection is
// not used again, so that they cannot be read as the reply of the next command.
func TestBytesAfterTheReplyAreNotTheNextReply(t *testing.T) {
	t.Parallel()
	p := listen(t, func(conn, cmd int) (string, bool) {
		if conn == 0 && cmd == 0 {
			return "+OK\r\n:7\r\n", false
		}
		return "+SECOND\r\n", false
	})
	c := New(Options{Addr: p.addr})
	defer c.Close()
	if v, err := c.Do(t.Context(), "SET", "k", "v"); !errors.Is(err, ErrProtocol) {
		t.Errorf("a reply followed by another: %v, %v; want ErrProtocol", v, err)
	}
	if v, err := c.Do(t.Context(), "GET", "k"); v != "SECOND" || err != nil {
		t.Errorf("the next command: %v, %v; want its own reply, SECOND", v, err)
	}
}
