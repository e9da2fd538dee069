//go:build purego

package chunkmem

// Builder builds a text whose strings are handed out without a copy: builderSafe, a
// strings.Builder, built with the purego tag (see builder_unsafe.go).
type Builder = builderSafe
