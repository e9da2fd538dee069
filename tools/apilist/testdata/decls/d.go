package decls

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Errors.
var (
	ErrA = errors.New("a")
	ErrB = fmt.Errorf("b: %w", ErrA)
	ErrC = io.EOF
)

// Defaults.
var (
	Default  = Config{}
	Pointer  = &Config{}
	Count    int
	Computed = compute()
	private  = 1
)

func compute() int { return 1 }

// Config configures.
type Config struct{ Name string }

// Reader reads.
type Reader interface {
	io.Closer
	Read(ctx context.Context, p []byte) (n int, err error)
	Reset()
	private()
}

// Handler is a function type.
type Handler func(context.Context, ...string) error

// Chan is a channel type.
type Chan <-chan []map[string]*Config

// New makes a config.
func New(name string, opts ...func(*Config)) (*Config, error) { return nil, nil }

// Close closes.
func (c *Config) Close() error { return nil }

// String names it.
func (c Config) String() string { return c.Name }

func (c Config) lower() {}

type hidden struct{}

// Exported is a method on an unexported type.
func (hidden) Exported() {}

func unexported() {}
