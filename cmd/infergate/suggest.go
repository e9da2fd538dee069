package main

import "strings"

// nearestCommand returns the command that name is most likely a slip for: the nearest by edit
// distance (a swap of two neighbouring letters counting as one edit), within a third of the
// name's length and at least one edit; else the one command name is the start of (three letters
// or more). ok is false when nothing is that close.
func nearestCommand(name string) (nearest string, ok bool) {
	name = strings.ToLower(name)
	best := max(1, len(name)/3) + 1
	for _, c := range commands {
		if d := editDistance(name, c.name); d < best {
			nearest, best = c.name, d
		}
	}
	if nearest != "" {
		return nearest, true
	}
	if len(name) < 3 {
		return "", false
	}
	for _, c := range commands {
		if strings.HasPrefix(c.name, name) {
			if nearest != "" {
				return "", false
			}
			nearest = c.name
		}
	}
	return nearest, nearest != ""
}

// editDistance is the optimal string alignment distance between a and b, byte by byte: the fewest
// insertions, deletions, substitutions and swaps of adjacent bytes that turn a into b.
func editDistance(a, b string) int {
	// prev2, prev and row are the rows of the table for a[:i-1], a[:i] and a[:i+1].
	prev2, prev, row := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			row[j] = min(prev[j]+1, row[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				row[j] = min(row[j], prev2[j-2]+1)
			}
		}
		prev2, prev, row = prev, row, prev2
	}
	return prev[len(b)]
}
