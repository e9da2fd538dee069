package generics

import "iter"

// Number is a constraint with a union.
type Number interface {
	~int | ~int64 | float64
}

// Pair holds two values.
type Pair[K comparable, V any] struct {
	Key   K
	Value V
	note  string
}

// Get returns the value.
func (p *Pair[K, V]) Get() V { return p.Value }

// All ranges over the pair.
func (p Pair[K, V]) All() iter.Seq2[K, V] { return nil }

func (p *Pair[K, V]) hidden() {}

// Sum adds numbers.
func Sum[T Number](xs ...T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

// Map applies f.
func Map[S ~[]E, E, R any](s S, f func(E) R) []R { return nil }

// List is a generic slice.
type List[T any] []T

// Set is an alias.
type Set[T comparable] = map[T]struct{}
