// Package modelname resolves a model name against a catalogue as the deployed gateway does, and
// finds the catalogue names near one it does not know. The SDK's Models.Resolve and gatewaytest's
// fake gateway both go through it, so that the two cannot differ.
package modelname

import (
	"slices"
	"strings"
	"unicode"
)

// NearMissCutoff and MaxSuggestions are the gateway's: difflib's ratio a key must reach, and how
// many catalogue names a near miss names at most.
const (
	NearMissCutoff = 0.72
	MaxSuggestions = 5
)

// Index is a catalogue indexed the way the gateway resolves names: a model's hex id (exactly, case
// and all), its name (without case), the slug of its name when no other model claims that slug,
// or a name whose slug is one of those. Built once, read only.
type Index struct {
	names []string       // the catalogue's names, in its order
	byHex map[string]int // blockchain id → model
	byKey map[string]int // lower-case name, or the slug of one name alone → model
	keys  []string       // byKey's keys, sorted, which near misses are sought among
}

// NewIndex indexes a catalogue given as its models' names and hex ids (hexIDs[i] is names[i]'s;
// an empty one is no id). When two models share a key, the first one has it.
func NewIndex(names, hexIDs []string) *Index {
	x := &Index{names: names, byHex: map[string]int{}, byKey: map[string]int{}}
	slugs := map[string][]int{}
	for i, name := range names {
		if i < len(hexIDs) && hexIDs[i] != "" {
			if _, dup := x.byHex[hexIDs[i]]; !dup {
				x.byHex[hexIDs[i]] = i
			}
		}
		if _, dup := x.byKey[strings.ToLower(name)]; !dup {
			x.byKey[strings.ToLower(name)] = i
		}
		s := Slug(name)
		slugs[s] = append(slugs[s], i)
	}
	// A slug is an alias only when one model claims it, and a name always wins over it.
	for s, claims := range slugs {
		if _, taken := x.byKey[s]; !taken && len(claims) == 1 && s != "" {
			x.byKey[s] = claims[0]
		}
	}
	x.keys = make([]string, 0, len(x.byKey))
	for k := range x.byKey {
		x.keys = append(x.keys, k)
	}
	slices.Sort(x.keys)
	return x
}

// Slug is the gateway's kebab slug of a name: lower case, each run of white space or underscores
// a hyphen, runs of hyphens one, none at either end. Dots and colons stay.
func Slug(name string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(name) {
		if unicode.IsSpace(r) || r == '_' || r == '-' {
			hyphen = true
			continue
		}
		if hyphen && b.Len() > 0 {
			b.WriteByte('-')
		}
		hyphen = false
		b.WriteRune(r)
	}
	return b.String()
}

// Lookup returns the position in the catalogue of the model name resolves to.
func (x *Index) Lookup(name string) (int, bool) {
	i, ok := x.byHex[name]
	if !ok {
		i, ok = x.byKey[strings.ToLower(name)]
	}
	if !ok {
		i, ok = x.byKey[Slug(name)]
	}
	return i, ok
}

// Suggestions are the catalogue names the gateway offers for a name it does not know: the names
// the slug reaches once a trailing -turbo or -instruct-turbo is cut off (repeatedly), then the
// names of the keys difflib finds close to the slug, to the name in lower case and to each cut
// form; each name once, at most MaxSuggestions. None means the gateway would serve the name with
// its default model.
func (x *Index) Suggestions(name string) []string {
	cut := []string{}
	for s := Slug(name); ; {
		trimmed, ok := strings.CutSuffix(s, "-instruct-turbo")
		if !ok {
			trimmed, ok = strings.CutSuffix(s, "-turbo")
		}
		if !ok {
			break
		}
		s = trimmed
		cut = append(cut, s)
	}
	var out []string
	add := func(key string) {
		if n := x.names[x.byKey[key]]; len(out) < MaxSuggestions && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, s := range cut {
		if _, ok := x.byKey[s]; ok {
			add(s)
		}
	}
	for _, needle := range append([]string{Slug(name), strings.ToLower(name)}, cut...) {
		for _, key := range CloseMatches(needle, x.keys, MaxSuggestions, NearMissCutoff) {
			add(key)
		}
	}
	return out
}
