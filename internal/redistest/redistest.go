// Package redistest runs a redis-server for a test package: Debian's (apt-get install
// redis-server), on a free loopback port, with persistence off.
package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startTimeout bounds how long a server may take to say it is ready.
const startTimeout = 20 * time.Second

// Server is a redis-server process that can be stopped and started again on its port.
type Server struct {
	Addr string

	tls []string // the certificate's and key's files of a server that speaks TLS only

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

var (
	shared     *Server
	sharedErr  error
	sharedOnce sync.Once
)

// Shared returns the test package's server, started on first use; Stop it in TestMain, after the
// tests. Without redis-server it skips the test, with how to install it, except in CI (CI=true),
// where it fails.
func Shared(t testing.TB) *Server {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = Start() })
	if sharedErr != nil {
		Unavailable(t, sharedErr)
	}
	return shared
}

// StopShared stops the server Shared started, if it did.
func StopShared() {
	if shared != nil {
		shared.Stop()
	}
}

// Unavailable skips t because of err (fails it in CI).
func Unavailable(t testing.TB, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("redis-server is needed in CI: %v", err)
	}
	t.Skipf("skipped: %v (install it: apt-get install redis-server)", err)
}

// Start starts a redis-server on a free loopback port.
func Start() (*Server, error) { return start(nil) }

// StartTLS starts a redis-server on a free loopback port that speaks TLS only, with the
// certificate and key (PEM) in those files, and asks no certificate of its clients.
func StartTLS(certFile, keyFile string) (*Server, error) { return start([]string{certFile, keyFile}) }

func start(tlsFiles []string) (*Server, error) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		return nil, fmt.Errorf("redis-server not found: %w", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	s := &Server{Addr: addr, tls: tlsFiles}
	return s, s.Restart()
}

// Restart starts the server again on its address after Stop; its data is gone.
func (s *Server) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return errors.New("redistest: the server is running")
	}
	_, port, _ := net.SplitHostPort(s.Addr)
	args := []string{"--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no",
		"--protected-mode", "yes", "--loglevel", "notice", "--logfile", ""}
	if s.tls != nil {
		args = append(args, "--port", "0", "--tls-port", port, "--tls-cert-file", s.tls[0], "--tls-key-file", s.tls[1],
			"--tls-auth-clients", "no")
	}
	cmd := exec.Command("redis-server", args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return err
	}
	ready := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		lines := bufio.NewScanner(out)
		var seen []string
		said := false
		for lines.Scan() {
			if !said {
				seen = append(seen, lines.Text())
				if strings.Contains(lines.Text(), "Ready to accept connections") {
					said = true
					ready <- nil
				}
			}
		}
		if !said {
			ready <- fmt.Errorf("redis-server ended before it was ready:\n%s", strings.Join(seen, "\n"))
		}
		io.Copy(io.Discard, out)
		cmd.Wait()
	}()
	select {
	case err := <-ready:
		if err != nil {
			<-done
			return err
		}
	case <-time.After(startTimeout):
		cmd.Process.Kill()
		<-done
		return fmt.Errorf("redis-server did not say it was ready within %v", startTimeout)
	}
	s.cmd, s.done = cmd, done
	return nil
}

// Stop stops the server and waits for its end.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	<-s.done
	s.cmd, s.done = nil, nil
}
