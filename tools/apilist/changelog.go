package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// checkBreaking checks that every line of the last release's listing (api/release/) that the tree
// no longer has is named under "### Breaking" in the changelog's Unreleased section; the fields and
// methods of a type removed whole are covered by the type's name. A module without
// a release listing has not been released and has nothing to break.
func checkBreaking(mods []module, root string, out io.Writer) (bool, error) {
	var text string
	loaded := false
	ok := true
	for _, m := range mods {
		released, found, err := readListing(filepath.Join(root, "api", "release", m.file()))
		if err != nil {
			return false, err
		}
		if !found {
			continue
		}
		removed, _ := diff(released, m.lines)
		if len(removed) == 0 {
			continue
		}
		if !loaded {
			b, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return false, err
			}
			text, loaded = breakingText(string(b)), true
		}
		// A type removed whole is named once: its fields and methods go with it.
		gone := map[string]bool{}
		for _, l := range removed {
			if n := lineName(l); !strings.Contains(n, ".") && strings.Contains(l, ", type ") {
				gone[n] = true
			}
		}
		var missing []string
		for _, l := range removed {
			name := lineName(l)
			typ, _, isMember := strings.Cut(name, ".")
			if isMember && gone[typ] {
				name = typ
			}
			if !mentioned(text, name) {
				missing = append(missing, l)
			}
		}
		if len(missing) > 0 {
			ok = false
			fmt.Fprintf(out, "Removed or changed in %s since the last release (api/release/%s), but not named under \"### Breaking\" in CHANGELOG.md's Unreleased section:\n", m.path, m.file())
			for _, l := range missing {
				fmt.Fprintf(out, "  %s\t(%s)\n", lineName(l), l)
			}
		}
	}
	return ok, nil
}

// breakingText is the text of the "### Breaking" subsection of the "## [Unreleased]" section.
func breakingText(changelog string) string {
	var b strings.Builder
	inUnreleased, inBreaking := false, false
	for line := range strings.SplitSeq(changelog, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "## "):
			inUnreleased = strings.Contains(strings.ToLower(t), "unreleased")
			inBreaking = false
		case strings.HasPrefix(t, "### "):
			inBreaking = inUnreleased && strings.HasPrefix(strings.ToLower(strings.TrimSpace(t[4:])), "breaking")
		case inBreaking:
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// lineName is the name a listing line declares: Name for a function, constant, variable or type,
// Type.Name for a method, a field or an interface's method.
func lineName(line string) string {
	_, decl, _ := strings.Cut(line, ", ")
	kind, rest, _ := strings.Cut(decl, " ")
	switch kind {
	case "method": // method (*T[X]) Name(...)
		recv, after, _ := strings.Cut(rest, ") ")
		recv = strings.TrimLeft(recv, "(*")
		recv, _, _ = strings.Cut(recv, "[")
		return recv + "." + identPrefix(after)
	case "type":
		name := identPrefix(rest)
		// A member line reads "type T[...] struct, Member ..." or "type T interface, Member(...)".
		if i := strings.Index(rest, " struct, "); i >= 0 {
			return memberName(name, rest[i+len(" struct, "):])
		}
		if i := strings.Index(rest, " interface, "); i >= 0 {
			return memberName(name, rest[i+len(" interface, "):])
		}
		return name
	default: // func, const, var
		return identPrefix(rest)
	}
}

func memberName(typ, member string) string {
	if e, ok := strings.CutPrefix(member, "embedded "); ok {
		e = strings.TrimLeft(e, "*")
		if i := strings.LastIndex(e, "."); i >= 0 {
			e = e[i+1:]
		}
		return typ + "." + identPrefix(e)
	}
	if m := identPrefix(member); m != "" {
		return typ + "." + m
	}
	return typ // a union of types in a constraint
}

var identRE = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_]*`)

func identPrefix(s string) string { return identRE.FindString(s) }

// mentioned says whether the changelog text names the declaration, as a whole word, maybe after a
// package's name ("gatewaytest.FixedTime"): "Name" for a top-level name, "Type.Name" for a field or a
// method. A bare member name is not enough: "Status" appears in many a changelog line that is not
// about StreamError.Status.
func mentioned(text, name string) bool {
	const before = `(^|[^\p{L}\p{N}_.])(\p{Ll}[\p{L}\p{N}_]*\.)?`
	return regexp.MustCompile(before + regexp.QuoteMeta(name) + `($|[^\p{L}\p{N}_])`).MatchString(text)
}
