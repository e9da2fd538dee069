package resp

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/infergate/infergate-go/internal/redistest"
)

// client is a client of the package's redis-server, closed after the test.
func client(t *testing.T, o Options) *Client {
	t.Helper()
	o.Addr = redistest.Shared(t).Addr
	c := New(o)
	t.Cleanup(func() { c.Close() })
	return c
}

// own starts a redis-server for one test, stopped after it.
func own(t *testing.T) *redistest.Server {
	t.Helper()
	srv, err := redistest.Start()
	if err != nil {
		redistest.Unavailable(t, err)
	}
	t.Cleanup(srv.Stop)
	return srv
}

func do(t *testing.T, c *Client, args ...any) any {
	t.Helper()
	v, err := c.Do(t.Context(), args...)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return v
}

func TestCommands(t *testing.T) {
	t.Parallel()
	c := client(t, Options{})
	k := t.Name()
	for _, step := range []struct {
		args []any
		want any
	}{
		{[]any{"PING"}, "PONG"},
		{[]any{"DEL", k, k + "2"}, int64(0)},
		{[]any{"SET", k, []byte("a\r\nb"), "PX", int64(60000)}, "OK"},
		{[]any{"GET", k}, "a\r\nb"},
		{[]any{"MGET", k, k + "2"}, []any{"a\r\nb", nil}},
		{[]any{"INCRBY", k + "2", 3}, int64(3)},
		{[]any{"INCRBYFLOAT", k + "2", 0.5}, "3.5"},
		{[]any{"ZADD", k + "3", uint64(7), "m"}, int64(1)},
		{[]any{"ZRANGE", k + "3", 0, -1, "WITHSCORES"}, []any{"m", "7"}},
		{[]any{"HSET", k + "4", "f", true}, int64(1)},
		{[]any{"HGET", k + "4", "f"}, "1"},
	} {
		if diff := cmp.Diff(step.want, do(t, c, step.args...)); diff != "" {
			t.Errorf("%v (-want +got):\n%s", step.args, diff)
		}
	}
	_, err := c.Do(t.Context(), "HGET", k, "f") // k holds a string
	var answer Error
	if !errors.As(err, &answer) || answer.Prefix() != "WRONGTYPE" {
		t.Fatalf("HGET of a string: %v; want a WRONGTYPE Error", err)
	}
	if got := do(t, c, "PING"); got != "PONG" { // the connection is still good after an error reply
		t.Fatalf("PING after an error reply: %v", got)
	}
	if _, err := c.Do(t.Context(), "SET", k, struct{}{}); err == nil {
		t.Fatal("an argument of an unknown type was sent")
	}
	if got := do(t, c, "GET", k); got != "a\r\nb" {
		t.Fatalf("GET after a refused command: %v", got)
	}
}

// A script the server does not have is sent whole, and by its hash afterwards.
func TestRunLoadsTheScript(t *testing.T) {
	t.Parallel()
	c := client(t, Options{})
	s := NewScript("return {KEYS[1], ARGV[1] + 1, '" + t.Name() + "'}") // a script no other test has
	if got := do(t, c, "SCRIPT", "EXISTS", s.Hash()); !cmp.Equal(got, []any{int64(0)}) {
		t.Fatalf("SCRIPT EXISTS before: %v", got)
	}
	for range 2 {
		got, err := c.Run(t.Context(), s, []string{"k"}, 41)
		if err != nil {
			t.Fatal(err)
		}
		if want := []any{"k", int64(42), t.Name()}; !cmp.Equal(got, want) {
			t.Fatalf("Run = %v; want %v", got, want)
		}
		if got := do(t, c, "SCRIPT", "EXISTS", s.Hash()); !cmp.Equal(got, []any{int64(1)}) {
			t.Fatalf("SCRIPT EXISTS after: %v", got)
		}
	}
}

// A password, a user's, and a database number: each connection authenticates and selects it.
func TestAuthAndDatabase(t *testing.T) {
	t.Parallel()
	srv := own(t)
	admin := New(Options{Addr: srv.Addr})
	defer admin.Close()
	do(t, admin, "ACL", "SETUSER", "alice", "on", ">wonder", "~*", "+@all")
	do(t, admin, "CONFIG", "SET", "requirepass", "s3cret")

	dial := func(url string) *Client {
		o, err := ParseURL(url)
		if err != nil {
			t.Fatal(err)
		}
		c := New(o)
		t.Cleanup(func() { c.Close() })
		return c
	}
	db3 := dial("redis://:s3cret@" + srv.Addr + "/3")
	do(t, db3, "SET", "k", "in 3")
	if got := do(t, dial("redis://:s3cret@"+srv.Addr), "GET", "k"); got != nil {
		t.Fatalf("GET k in database 0 = %v; want nil", got)
	}
	if got := do(t, dial("redis://alice:wonder@"+srv.Addr+"/3"), "GET", "k"); got != "in 3" {
		t.Fatalf("GET k as alice in database 3 = %v", got)
	}
	for url, code := range map[string]string{
		"redis://:wrong@" + srv.Addr: "WRONGPASS",
		"redis://" + srv.Addr:        "NOAUTH",
	} {
		_, err := dial(url).Do(t.Context(), "PING")
		var answer Error
		if !errors.As(err, &answer) || answer.Prefix() != code {
			t.Errorf("%s: PING: %v; want a %s Error", url, err, code)
		}
	}
}

// rediss:// verifies the server's certificate for the URL's host.
func TestTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	roots := selfSigned(t, filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"))
	srv, err := redistest.StartTLS(filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"))
	if err != nil {
		redistest.Unavailable(t, err)
	}
	t.Cleanup(srv.Stop)
	o, err := ParseURL("rediss://" + srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	untrusted := New(o)
	defer untrusted.Close()
	var unknown x509.UnknownAuthorityError
	if _, err := untrusted.Do(t.Context(), "PING"); !errors.As(err, &unknown) {
		t.Fatalf("PING to a server whose certificate no root signed: %v; want x509.UnknownAuthorityError", err)
	}
	o.TLS.RootCAs = roots
	trusted := New(o)
	defer trusted.Close()
	if got := do(t, trusted, "PING"); got != "PONG" {
		t.Fatalf("PING = %v", got)
	}
	plain := New(Options{Addr: srv.Addr, ReadTimeout: time.Second})
	defer plain.Close()
	if _, err := plain.Do(t.Context(), "PING"); err == nil {
		t.Fatal("a TLS server answered in plain text")
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns the roots that trust it.
func selfSigned(t *testing.T, certFile, keyFile string) *x509.CertPool {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	return roots
}

// A call whose context ends while the server holds its reply back returns at once with the
// context's error, and the connection, which still owes that reply, is not used again.
func TestContextEndsTheCall(t *testing.T) {
	t.Parallel()
	c := client(t, Options{PoolSize: 1})
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	begun := time.Now()
	if _, err := c.Do(ctx, "BLPOP", t.Name(), 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("BLPOP past the context's deadline: %v", err)
	}
	if took := time.Since(begun); took > 2*time.Second {
		t.Fatalf("returned %v after the context's deadline of 100ms", took)
	}
	// On the connection still owing the BLPOP's reply, the server would hold ECHO behind the BLPOP,
	// which waits for ever. (Pushing to the list and popping it would race the server's noticing the
	// closed connection: until it does, its BLPOP may take what is pushed.)
	echo, cancelEcho := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancelEcho()
	if got, err := c.Do(echo, "ECHO", "x"); err != nil || got != "x" {
		t.Fatalf("ECHO after the BLPOP given up = %v, %v; want x", got, err)
	}
}

func TestReadTimeout(t *testing.T) {
	t.Parallel()
	c := client(t, Options{ReadTimeout: 100 * time.Millisecond})
	var timeout net.Error
	if _, err := c.Do(t.Context(), "BLPOP", t.Name(), 0); !errors.As(err, &timeout) || !timeout.Timeout() {
		t.Fatalf("BLPOP past the read timeout: %v; want a net.Error timeout", err)
	}
}

// No more than PoolSize connections are used at once: a call waits for one, within its context.
func TestPoolBound(t *testing.T) {
	t.Parallel()
	c := client(t, Options{PoolSize: 1})
	blocked, unblock := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() { c.Do(blocked, "BLPOP", t.Name(), 0) })
	defer wg.Wait()
	defer unblock()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if len(c.slots) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the BLPOP never took its connection")
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.Do(ctx, "PING"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("PING with the pool's one connection in use: %v; want the context's deadline", err)
	}
}

// A connection the server closed while it sat idle is replaced at once: the call after a restart
// succeeds. A server that is down is an error of the network.
func TestServerRestarted(t *testing.T) {
	t.Parallel()
	srv := own(t)
	c := New(Options{Addr: srv.Addr})
	defer c.Close()
	do(t, c, "PING")
	srv.Stop()
	var netErr net.Error
	if _, err := c.Do(t.Context(), "PING"); !errors.As(err, &netErr) {
		t.Fatalf("PING to a stopped server: %v; want a net.Error", err)
	}
	if _, err := c.Do(t.Context(), "PING"); !errors.As(err, &netErr) { // a new connection: still nothing listens
		t.Fatalf("PING again to a stopped server: %v; want a net.Error", err)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	do(t, c, "PING")
}

func TestClose(t *testing.T) {
	t.Parallel()
	c := client(t, Options{})
	do(t, c, "PING")
	c.Close()
	if _, err := c.Do(t.Context(), "PING"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Do after Close: %v; want ErrClosed", err)
	}
}
