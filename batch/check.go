package batch

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// checked is what the first pass over the input learned.
type checked struct {
	ids   idSet
	total int // requests in the shard
}

// checkInput reads the whole input once, checking every line, and returns its custom_ids' keys. A
// bad line is an *InputError; reading stops at MaxLineErrors of them.
func checkInput(path string, h hasher, shard Shard) (checked, error) {
	f, err := os.Open(path)
	if err != nil {
		return checked{}, fmt.Errorf("batch: input: %w", err)
	}
	defer f.Close()
	// The keys are made room for at once: a slice grown by append would, while it is copied, hold
	// its old and new arrays, twice the memory of the run's largest structure.
	lines, err := countLines(f)
	if err != nil {
		return checked{}, fmt.Errorf("batch: input: %w", err)
	}
	var (
		keys  = make([]idKey, 0, lines)
		bad   []LineError
		total int
	)
	lr := newLineReader(f)
	for len(bad) < MaxLineErrors {
		line, _, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, ErrLineTooLong) {
			bad = append(bad, LineError{Line: lr.line, Err: err})
			continue
		}
		if err != nil {
			return checked{}, fmt.Errorf("batch: input: %w", err)
		}
		if blank(line) {
			continue
		}
		c, err := parseLine(line)
		if err != nil {
			bad = append(bad, LineError{Line: lr.line, CustomID: c.customID, Err: err})
		}
		if c.customID != "" {
			keys = append(keys, h.key(c.customID))
			if shard.Contains(c.customID) {
				total++
			}
		}
	}
	ids, twice := newIDSet(keys)
	if len(twice) > 0 && len(bad) < MaxLineErrors {
		dups, err := findDuplicates(path, h, twice)
		if err != nil {
			return checked{}, err
		}
		bad = append(bad, dups...)
		slices.SortStableFunc(bad, func(a, b LineError) int { return cmp.Compare(a.Line, b.Line) })
		bad = bad[:min(len(bad), MaxLineErrors)]
	}
	if len(bad) > 0 {
		return checked{}, &InputError{Lines: bad}
	}
	return checked{ids: ids, total: total}, nil
}

// findDuplicates reads the input again for the lines whose custom_id has one of keys, and compares
// their ids themselves: keys are hashes, and only equal ids are duplicates.
func findDuplicates(path string, h hasher, keys []idKey) ([]LineError, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("batch: input: %w", err)
	}
	defer f.Close()
	suspects := make(map[idKey]bool, len(keys))
	for _, k := range keys {
		suspects[k] = true
	}
	first := make(map[string]int)
	var dups []LineError
	lr := newLineReader(f)
	for {
		line, _, err := lr.next()
		if errors.Is(err, io.EOF) {
			return dups, nil
		}
		if errors.Is(err, ErrLineTooLong) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("batch: input: %w", err)
		}
		id := customIDOf(line)
		if id == "" || !suspects[h.key(id)] {
			continue
		}
		if at, ok := first[id]; ok {
			dups = append(dups, LineError{Line: lr.line, CustomID: id, Err: &DuplicateError{FirstLine: at}})
		} else {
			first[id] = lr.line
		}
	}
}

// countLines counts the lines of f, a last one without its newline included, and rewinds it.
func countLines(f *os.File) (int, error) {
	buf := make([]byte, 64<<10)
	n, last := 0, byte('\n')
	for {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if k > 0 {
			last = buf[k-1]
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if last != '\n' {
		n++
	}
	_, err := f.Seek(0, io.SeekStart)
	return n, err
}
