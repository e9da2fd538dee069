// Package devserver runs a real Temporal server for tests: the temporal command's development
// server (`temporal server start-dev`), headless, its data in memory, on a free loopback port.
//
// The command is found at $TEMPORAL_CLI, else as temporal on the PATH; InstallCommand builds it
// from its Go module. Without it, tests are skipped with that advice, except in CI (CI=true), where
// they fail. The tests that start a server are built with the e2e tag: building the command from
// source takes longer than CI affords (docs/long-running-agents.md gives the command that runs them).
package devserver

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
)

// InstallCommand installs the temporal command from its Go module, into $(go env GOPATH)/bin.
const InstallCommand = "go install github.com/temporalio/cli/cmd/temporal@v1.5.1"

// EnvBinary names the environment variable that gives the temporal command's path.
const EnvBinary = "TEMPORAL_CLI"

// Namespace is the namespace the server is started with.
const Namespace = "default"

// Timeouts for the server's start and its stop: a cold start on a loaded machine takes seconds.
const (
	startTimeout = 90 * time.Second
	stopTimeout  = 20 * time.Second
)

// Server is a running development server.
type Server struct {
	HostPort string // the frontend's, for client.Options.HostPort

	cmd    *exec.Cmd
	done   chan struct{} // closed once the process has ended and its output is read
	output *tail
	config string // the process's config directory, removed at Stop
	once   sync.Once
}

var (
	shared     *Server
	sharedErr  error
	sharedOnce sync.Once
)

// Shared returns the test package's server, started on first use; StopShared stops it, in
// TestMain after the tests. Without the temporal command it skips the test, with how to install
// it, except in CI (CI=true), where it fails.
func Shared(t testing.TB) *Server {
	t.Helper()
	sharedOnce.Do(func() {
		var bin string
		if bin, sharedErr = Binary(); sharedErr == nil {
			shared, sharedErr = Start(bin)
		}
	})
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
		t.Fatalf("a Temporal server is needed in CI: %v", err)
	}
	t.Skipf("skipped: %v (install the temporal command: %s; or set %s to its path)", err, InstallCommand, EnvBinary)
}

// Binary returns the temporal command's path: $TEMPORAL_CLI, else temporal on the PATH.
func Binary() (string, error) {
	if p := os.Getenv(EnvBinary); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvBinary, p, err)
		}
		return p, nil
	}
	p, err := exec.LookPath("temporal")
	if err != nil {
		return "", fmt.Errorf("the temporal command is not on the PATH and %s is not set", EnvBinary)
	}
	return p, nil
}

// Start starts the development server of the temporal command at bin on a free loopback port and
// returns once its frontend answers.
func Start(bin string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	// Without a database file, the server keeps a cluster id in the user's config directory: give
	// it one of its own, so that tests write nothing there.
	config, err := os.MkdirTemp("", "temporal-devserver-")
	if err != nil {
		return nil, err
	}
	s := &Server{HostPort: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), done: make(chan struct{}),
		output: &tail{max: 16 << 10}, config: config}
	s.cmd = exec.Command(bin, "server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", strconv.Itoa(port),
		"--namespace", Namespace, "--db-filename", "", "--log-level", "warn")
	s.cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+config, "HOME="+config)
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(config)
		return nil, err
	}
	s.cmd.Stderr = s.cmd.Stdout
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(config)
		return nil, err
	}
	// The command prints its frontend's address ("Server:  localhost:7233", or "Temporal Server:"
	// in later versions) once the server has started.
	listening := make(chan struct{})
	go func() {
		defer close(s.done)
		lines := bufio.NewScanner(out)
		said := false
		for lines.Scan() {
			s.output.add(lines.Text())
			if !said && strings.Contains(lines.Text(), "Server:") && strings.HasSuffix(lines.Text(), ":"+strconv.Itoa(port)) {
				said = true
				close(listening)
			}
		}
		io.Copy(io.Discard, out)
		s.cmd.Wait()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	select {
	case <-listening:
	case <-s.done:
		s.cleanup()
		return nil, fmt.Errorf("%s server start-dev ended before it started (%v):\n%s", bin, s.cmd.ProcessState, s.output)
	case <-ctx.Done():
		s.Stop()
		return nil, fmt.Errorf("%s server start-dev did not start within %v:\n%s", bin, startTimeout, s.output)
	}
	if err := s.answers(ctx); err != nil {
		s.Stop()
		return nil, fmt.Errorf("%s server start-dev started but does not answer: %w\n%s", bin, err, s.output)
	}
	return s, nil
}

// answers checks that the frontend answers and knows the namespace.
func (s *Server) answers(ctx context.Context) error {
	c, err := s.Dial()
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
		return err
	}
	_, err = c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: Namespace})
	return err
}

// Dial returns a client of the server's namespace, which logs only warnings and errors.
func (s *Server) Dial() (client.Client, error) {
	return client.Dial(s.ClientOptions())
}

// ClientOptions are the options of a client of the server's namespace, which logs only warnings
// and errors (to stderr).
func (s *Server) ClientOptions() client.Options {
	return client.Options{HostPort: s.HostPort, Namespace: Namespace, Logger: QuietLogger()}
}

// QuietLogger is a Temporal logger of warnings and errors, to stderr.
func QuietLogger() log.Logger {
	return log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
}

// Output returns the last lines the server printed.
func (s *Server) Output() string { return s.output.String() }

// Stop stops the server (SIGTERM, then SIGKILL if it has not ended within stopTimeout) and
// waits for its end.
func (s *Server) Stop() {
	s.once.Do(func() {
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(stopTimeout):
			s.cmd.Process.Kill()
			<-s.done
		}
		s.cleanup()
	})
}

func (s *Server) cleanup() { os.RemoveAll(s.config) }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail keeps the last max bytes of lines, for error messages.
type tail struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (t *tail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.WriteString(line)
	t.buf.WriteByte('\n')
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}
