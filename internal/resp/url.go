package resp

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Options configure a Client. Zero durations and sizes are the defaults.
type Options struct {
	Addr     string // host:port
	Username string // with Password: AUTH as that user (Redis 6's ACLs)
	Password Secret
	DB       int
	TLS      *tls.Config // nil: plain TCP

	DialTimeout  time.Duration // DefaultDialTimeout
	ReadTimeout  time.Duration // DefaultReadTimeout: how long a reply may take, within the call's context
	WriteTimeout time.Duration // DefaultReadTimeout
	PoolSize     int           // connections at most, in use and idle: DefaultPoolSize
}

// The defaults of Options.
const (
	DefaultDialTimeout = 5 * time.Second
	DefaultReadTimeout = 3 * time.Second
	DefaultPoolSize    = 20
)

// Secret is a password: it prints as a mark of its presence, never as itself, whatever the verb,
// and its text is behind a pointer, so that printing a struct that holds it in a field fmt cannot
// call Format on (an unexported one) shows an address, not the password.
type Secret struct{ text *string }

// NewSecret returns the secret of password; "" is none.
func NewSecret(password string) Secret {
	if password == "" {
		return Secret{}
	}
	return Secret{&password}
}

func (s Secret) reveal() string {
	if s.text == nil {
		return ""
	}
	return *s.text
}

// Format writes "[redacted]" for a password that is set, "" for none.
func (s Secret) Format(f fmt.State, _ rune) {
	if s.text != nil {
		f.Write([]byte("[redacted]"))
	}
}

// ParseURL reads a Redis URL: redis://[[user]:password@]host[:port][/db], or rediss:// for TLS
// (verified against the system's roots, for the URL's host). The port is 6379 when absent, the
// host localhost. Its errors never quote the URL, which may hold a password.
func ParseURL(s string) (Options, error) {
	u, err := url.Parse(s)
	if err != nil {
		return Options{}, errors.New("resp: the Redis URL is not a URL (want redis://[[user]:password@]host[:port][/db])")
	}
	var o Options
	switch u.Scheme {
	case "redis":
	case "rediss":
		o.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	default:
		return Options{}, fmt.Errorf("resp: a Redis URL begins redis:// or rediss://, not %q", truncate([]byte(u.Scheme)))
	}
	if u.Opaque != "" {
		return Options{}, errors.New("resp: the Redis URL has no host (want redis://host...)")
	}
	host, port := u.Hostname(), u.Port()
	if host == "" {
		host = "localhost"
	}
	if port == "" {
		port = "6379"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return Options{}, errors.New("resp: the Redis URL's port is not a number from 1 to 65535")
	}
	o.Addr = net.JoinHostPort(host, port)
	if o.TLS != nil {
		o.TLS.ServerName = host
	}
	if u.User != nil {
		o.Username = u.User.Username()
		password, ok := u.User.Password()
		if !ok {
			return Options{}, errors.New("resp: the Redis URL names a user without a password (write redis://:password@host for a password alone)")
		}
		o.Password = NewSecret(password)
	}
	if db := strings.TrimPrefix(u.Path, "/"); db != "" {
		n, err := strconv.Atoi(db)
		if err != nil || n < 0 {
			return Options{}, errors.New("resp: the Redis URL's path is not a database number")
		}
		o.DB = n
	}
	if len(u.Query()) > 0 || u.Fragment != "" {
		return Options{}, errors.New("resp: the Redis URL has parameters; none are known")
	}
	return o, nil
}
