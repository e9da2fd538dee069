// Package resp is a small Redis client: commands and replies in RESP2 (RESP3's types read too)
// over TCP or TLS, on a bounded pool of connections, each call bounded by its context and the
// client's timeouts. It holds what the SDK's shared limiter and cooldowns send, for the root
// module, whose dependencies do not include a Redis client.
//
// Nothing a server sends can make it panic or allocate beyond what arrives: lengths, nesting, the
// values of one reply and lines are bounded, and bytes that are not RESP are an error wrapping
// ErrProtocol, after which the connection is closed. An error reply is an Error, after which it
// is used again.
package resp

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"sync"
	"syscall"
	"time"
)

// ErrClosed is returned by the calls of a closed client.
var ErrClosed = errors.New("resp: the client is closed")

// Client is a pool of connections to one Redis server, safe for concurrent use.
type Client struct {
	opts  Options
	slots chan struct{} // one per connection in use: at most PoolSize in use, and so idle

	mu     sync.Mutex
	idle   []*conn
	closed bool
}

type conn struct {
	nc  net.Conn
	r   *bufio.Reader
	out []byte
}

// New returns a client of the server o names. It connects on first use.
func New(o Options) *Client {
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = DefaultReadTimeout
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = o.ReadTimeout
	}
	if o.PoolSize <= 0 {
		o.PoolSize = DefaultPoolSize
	}
	return &Client{opts: o, slots: make(chan struct{}, o.PoolSize)}
}

// Do sends one command and returns its reply (see Client's package documentation for its
// types); an error reply is an Error. When ctx ends first, its error is returned.
func (c *Client) Do(ctx context.Context, args ...any) (any, error) {
	if len(args) == 0 {
		return nil, errors.New("resp: an empty command")
	}
	for attempt := 0; ; attempt++ {
		cn, reused, err := c.get(ctx)
		if err != nil {
			return nil, err
		}
		reply, err := cn.roundTrip(ctx, args, c.opts)
		var answer Error
		var unwritten *argumentError
		if err == nil || errors.As(err, &answer) || errors.As(err, &unwritten) {
			c.put(cn)
			return reply, err
		}
		c.drop(cn)
		if ctxErr := ended(ctx); ctxErr != nil {
			return nil, ctxErr
		}
		// A connection that sat idle may have been closed by the server (a restart, its idle
		// timeout) before the command reached it: one new connection is tried.
		if !reused || attempt > 0 || !stale(err) {
			return nil, err
		}
	}
}

// ended is ctx's error, or DeadlineExceeded once its deadline has passed: a read that timed out
// at the context's deadline may return before the context says it has ended.
func ended(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}

// stale tells a connection found closed by its peer before it answered. A reply cut short
// (io.ErrUnexpectedEOF) is not: the server ran the command, which must not run twice.
func stale(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// Close closes the idle connections, and the others as their calls end. Calls after it return
// ErrClosed.
func (c *Client) Close() error {
	c.mu.Lock()
	idle := c.idle
	c.idle, c.closed = nil, true
	c.mu.Unlock()
	for _, cn := range idle {
		cn.nc.Close()
	}
	return nil
}

// get returns an idle connection or a new one, waiting for a place in the pool within ctx.
func (c *Client) get(ctx context.Context) (cn *conn, reused bool, err error) {
	if err := ctx.Err(); err != nil { // a select would take a free place as often as not
		return nil, false, err
	}
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		<-c.slots
		return nil, false, ErrClosed
	}
	if n := len(c.idle); n > 0 {
		cn = c.idle[n-1]
		c.idle = c.idle[:n-1]
		c.mu.Unlock()
		return cn, true, nil
	}
	c.mu.Unlock()
	cn, err = c.dial(ctx)
	if err != nil {
		<-c.slots
		if ctxErr := ended(ctx); ctxErr != nil {
			return nil, false, ctxErr
		}
		return nil, false, err
	}
	return cn, false, nil
}

// put gives a connection back to the pool.
func (c *Client) put(cn *conn) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		c.drop(cn)
		return
	}
	c.idle = append(c.idle, cn)
	c.mu.Unlock()
	<-c.slots
}

// drop closes a connection that cannot be used again, and frees its place.
func (c *Client) drop(cn *conn) {
	cn.nc.Close()
	<-c.slots
}

// dial connects, and authenticates and selects the database as the options say.
func (c *Client) dial(ctx context.Context) (*conn, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.DialTimeout)
	defer cancel()
	d := net.Dialer{}
	nc, err := d.DialContext(ctx, "tcp", c.opts.Addr)
	if err != nil {
		return nil, err
	}
	if c.opts.TLS != nil {
		tc := tls.Client(nc, c.opts.TLS.Clone())
		if err := tc.HandshakeContext(ctx); err != nil {
			nc.Close()
			return nil, err
		}
		nc = tc
	}
	cn := &conn{nc: nc, r: bufio.NewReaderSize(nc, maxLine)}
	var setup [][]any
	switch {
	case c.opts.Username != "":
		setup = append(setup, []any{"AUTH", c.opts.Username, c.opts.Password.reveal()})
	case c.opts.Password.reveal() != "":
		setup = append(setup, []any{"AUTH", c.opts.Password.reveal()})
	}
	if c.opts.DB != 0 {
		setup = append(setup, []any{"SELECT", c.opts.DB})
	}
	for _, cmd := range setup {
		if _, err := cn.roundTrip(ctx, cmd, c.opts); err != nil {
			nc.Close()
			return nil, err
		}
	}
	return cn, nil
}

// roundTrip writes one command and reads its reply, within ctx and the timeouts.
func (cn *conn) roundTrip(ctx context.Context, args []any, o Options) (any, error) {
	var err error
	if cn.out, err = appendCommand(cn.out[:0], args); err != nil {
		return nil, err
	}
	if cap(cn.out) > 64<<10 {
		defer func() { cn.out = nil }() // a large command's buffer is not kept
	}
	now := time.Now()
	cn.nc.SetWriteDeadline(deadline(ctx, now.Add(o.WriteTimeout)))
	cn.nc.SetReadDeadline(deadline(ctx, now.Add(o.ReadTimeout)))
	// A context that ends mid-call ends its reads and writes at once; the connection is then
	// closed, as the reply it owes would confuse the next call. The deadlines are set before, so
	// that they cannot undo it.
	stop := context.AfterFunc(ctx, func() { cn.nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if _, err := cn.nc.Write(cn.out); err != nil {
		return nil, err
	}
	reply, err := readReply(cn.r)
	if !stop() && ctx.Err() != nil {
		return nil, ctx.Err() // the deadline was moved: the connection is not used again
	}
	var answer Error
	if n := cn.r.Buffered(); n > 0 && (err == nil || errors.As(err, &answer)) {
		// No command asked for them: kept, they would be read as the next command's reply.
		return nil, protocolError("%d bytes after the reply", n)
	}
	return reply, err
}

func deadline(ctx context.Context, limit time.Time) time.Time {
	if d, ok := ctx.Deadline(); ok && d.Before(limit) {
		return d
	}
	return limit
}
