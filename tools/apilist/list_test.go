package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestListPackage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		dir  string
		want []string
	}{
		{"generics", []string{
			"func Map[S ~[]E, E, R any](S, func(E) R) []R",
			"func Sum[T Number](...T) T",
			"method (*Pair[K, V]) Get() V",
			"method (Pair[K, V]) All() iter.Seq2[K, V]",
			"type List[T any] []T",
			"type Number interface { ~int | ~int64 | float64 }",
			"type Number interface, ~int | ~int64 | float64",
			"type Pair[K comparable, V any] struct",
			"type Pair[K comparable, V any] struct, Key K",
			"type Pair[K comparable, V any] struct, Value V",
			"type Set[T comparable] = map[T]struct{}",
		}},
		{"structs", []string{
			"type Inner struct",
			"type Inner struct, A int",
			"type Opaque struct",
			"type Outer struct",
			"type Outer struct, Handler func(any, int) (bool, error)",
			"type Outer struct, Nested struct { P string }",
			"type Outer struct, X int",
			"type Outer struct, Y int",
			"type Outer struct, embedded *io.PipeReader",
			"type Outer struct, embedded Inner",
			"type Outer struct, embedded sync.Mutex",
		}},
		{"consts", []string{
			"const Big untyped int = 100",
			"const KindA Kind",
			"const KindB Kind",
			"const KindD Kind",
			"const Letter untyped rune = 'x'",
			"const Max untyped int = 10",
			"const Min untyped int = -3",
			`const ModeFast Mode = "fast"`,
			`const ModeSlow Mode = "slow"`,
			"const On untyped bool = true",
			"const Ratio untyped float = 0.5",
			"const Small untyped int = 1",
			"const Version untyped string",
			"const Wait = 5 * time.Second",
			"type Kind int",
			"type Mode string",
		}},
		{"decls", []string{
			"func New(string, ...func(*Config)) (*Config, error)",
			"method (*Config) Close() error",
			"method (Config) String() string",
			"type Chan <-chan []map[string]*Config",
			"type Config struct",
			"type Config struct, Name string",
			"type Handler func(context.Context, ...string) error",
			"type Reader interface { Read, Reset, io.Closer, unexported methods }",
			"type Reader interface, Read(context.Context, []byte) (int, error)",
			"type Reader interface, Reset()",
			"type Reader interface, embedded io.Closer",
			"type Reader interface, unexported methods",
			"var Computed = compute()",
			"var Count int",
			"var Default Config",
			"var ErrA error",
			"var ErrB error",
			"var ErrC error",
			"var Pointer *Config",
		}},
		{"command", nil},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			t.Parallel()
			api, err := listPackage("testdata/"+tt.dir, "example.com/"+tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range api.lines {
				rest, ok := strings.CutPrefix(l, "pkg example.com/"+tt.dir+", ")
				if !ok {
					t.Fatalf("line without its package: %q", l)
				}
				got = append(got, rest)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("listing of testdata/%s:\ngot:\n%s\nwant:\n%s", tt.dir, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestListPackageFindsUndocumentedFields(t *testing.T) {
	t.Parallel()
	api, err := listPackage("testdata/fielddocs", "example.com/fielddocs")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range api.undocumented {
		got = append(got, fmt.Sprintf("%s:%d: %s", filepath.ToSlash(u.file), u.line, u.name))
	}
	want := []string{
		"testdata/fielddocs/f.go:23: Undocumented.Bare",
		"testdata/fielddocs/f.go:25: Undocumented.Directive",
		"testdata/fielddocs/f.go:28: Undocumented.Detached",
		"testdata/fielddocs/f.go:30: Undocumented.Items.Hidden",
		"testdata/fielddocs/f.go:34: Undocumented.C",
		"testdata/fielddocs/f.go:34: Undocumented.D",
		"testdata/fielddocs/f.go:43: Generic.Value",
	}
	if !slices.Equal(got, want) {
		t.Errorf("undocumented fields:\ngot:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestLineName(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"pkg p, func New(string) *T":                          "New",
		"pkg p, func Map[S ~[]E, E any](S) S":                 "Map",
		"pkg p, method (*Pair[K, V]) Get() V":                 "Pair.Get",
		"pkg p, method (Config) String() string":              "Config.String",
		"pkg p, type Pair[K comparable, V any] struct":        "Pair",
		"pkg p, type Pair[K comparable, V any] struct, Key K": "Pair.Key",
		"pkg p, type Outer struct, embedded *io.PipeReader":   "Outer.PipeReader",
		"pkg p, type Reader interface, Read([]byte) int":      "Reader.Read",
		"pkg p, type Reader interface { Read, Reset }":        "Reader",
		"pkg p, type Number interface, ~int | float64":        "Number",
		"pkg p, const KindA Kind":                             "KindA",
		"pkg p, var ErrA error":                               "ErrA",
		"pkg p, type Set[T comparable] = map[T]struct{}":      "Set",
	}
	for line, want := range tests {
		if got := lineName(line); got != want {
			t.Errorf("lineName(%q) = %q, want %q", line, got, want)
		}
	}
}

func TestMentioned(t *testing.T) {
	t.Parallel()
	text := "- `OldFunc` → `NewFunc`, `pkg.Moved`, `Type.pkg.Odd`\n- `RatedBid.BidID` → `ID`; `client.Audio.Speech` → `Speak`\n- Stat is gone\n"
	tests := []struct {
		name string
		want bool
	}{
		{"OldFunc", true},
		{"NewFunc", true},
		{"Old", false},  // a prefix of a word is not the word
		{"Func", false}, // nor a suffix
		{"RatedBid.BidID", true},
		{"Other.BidID", false},         // another type's field of that name is not named
		{"AudioService.Speech", false}, // client.Audio.Speech does not name the method's type
		{"StreamError.Stat", false},    // the bare member name is not enough
		{"RatedBid.ModelID", false},
		{"Stat", true},
		{"Moved", true}, // after a package's name
		{"Odd", false},  // after something that is not a package's name
	}
	for _, tt := range tests {
		if got := mentioned(text, tt.name); got != tt.want {
			t.Errorf("mentioned(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestBreakingText(t *testing.T) {
	t.Parallel()
	changelog := `# Changelog

## [Unreleased]

### Added
- NotBreaking

### Breaking
- InUnreleased

### Fixed
- AfterBreaking

## [0.1.0] - 2026-01-01

### Breaking
- InRelease
`
	got := breakingText(changelog)
	if !strings.Contains(got, "InUnreleased") {
		t.Errorf("the Unreleased Breaking text %q misses its entry", got)
	}
	for _, w := range []string{"NotBreaking", "AfterBreaking", "InRelease"} {
		if strings.Contains(got, w) {
			t.Errorf("the Unreleased Breaking text %q holds %s, from another section", got, w)
		}
	}
}
