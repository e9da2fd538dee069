package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Succeeded reports whether the request got a successful answer: a 2xx response and no error.
func (r *Result) Succeeded() bool {
	return r != nil && r.Error == nil && r.Response != nil && r.Response.StatusCode >= 200 && r.Response.StatusCode < 300
}

// outcome is what one output line says: its custom_id and whether it succeeded.
type outcome struct {
	customID  string
	succeeded bool
}

// parseResult reads one output line; an error when it is not a result (no JSON object, no
// custom_id).
func parseResult(line []byte) (outcome, error) {
	var r struct {
		CustomID *string `json:"custom_id"`
		Response *struct {
			StatusCode int `json:"status_code"`
		} `json:"response"`
		Error json.RawMessage `json:"error"`
	}
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return outcome{}, errors.New("not a JSON object")
	}
	if err := json.Unmarshal(trimmed, &r); err != nil {
		return outcome{}, err
	}
	if r.CustomID == nil || *r.CustomID == "" {
		return outcome{}, errors.New("no custom_id")
	}
	noError := len(r.Error) == 0 || string(bytes.TrimSpace(r.Error)) == "null"
	ok := noError && r.Response != nil && r.Response.StatusCode >= 200 && r.Response.StatusCode < 300
	return outcome{customID: *r.CustomID, succeeded: ok}, nil
}

// OutputError is an output file that is not a batch output: a line other than the last is not a
// result. The file is left as it is.
type OutputError struct {
	Line int   // from 1
	Err  error // why it is not a result
}

func (e *OutputError) Error() string {
	return fmt.Sprintf("batch: output line %d is not a batch result: %v", e.Line, e.Err)
}

// Unwrap gives why the line is not a result.
func (e *OutputError) Unwrap() error { return e.Err }

// found is what the output held when the run started.
type found struct {
	end        int64 // just past the last whole result line
	unfinished bool  // the last result lacks its newline
	torn       bool  // bytes past end that are no result: a write a crash cut short
	// succeeded and failed count the requests of the shard with a result, by its outcome.
	succeeded, failed int
}

// readOutput reads the output file, if any, marking in ids what it holds for each request of the
// input; a result for a custom_id the input does not have is left alone. Only the last line may be
// something other than a result: a write a crash tore.
func readOutput(path string, h hasher, ids *idSet, shard Shard) (found, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return found{}, nil
	}
	if err != nil {
		return found{}, fmt.Errorf("batch: output: %w", err)
	}
	defer f.Close()
	var (
		out     found
		badLine int
		badErr  error
		spaces  bool // the file ends in white space without a newline, which a result would follow
	)
	lr := newLineReader(f)
	for {
		start := lr.end
		line, terminated, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, ErrLineTooLong) {
			return found{}, fmt.Errorf("batch: output: %w", err)
		}
		if badErr != nil {
			return found{}, &OutputError{Line: badLine, Err: badErr}
		}
		if err == nil && blank(line) {
			if terminated {
				out.end = lr.end
			} else {
				spaces = true
			}
			continue
		}
		var o outcome
		if err == nil {
			o, err = parseResult(line)
		}
		if err != nil {
			badLine, badErr, out.end = lr.line, err, start
			continue
		}
		out.end, out.unfinished = lr.end, !terminated
		i, ok := ids.find(h.key(o.customID))
		if !ok {
			continue
		}
		was := ids.state[i]
		switch {
		case o.succeeded:
			ids.state[i] = succeeded
		case was == pending:
			ids.state[i] = failed
		}
		if was != ids.state[i] && shard.Contains(o.customID) {
			out.count(was, -1)
			out.count(ids.state[i], 1)
		}
	}
	out.torn = badErr != nil || spaces
	return out, nil
}

func (out *found) count(s state, n int) {
	switch s {
	case succeeded:
		out.succeeded += n
	case failed:
		out.failed += n
	}
}

// repair makes the output end with a whole line: a torn last line is cut off (its request is sent
// again), as is white space after the last newline, a last result lacking its newline gets it.
func repair(path string, out found) error {
	if !out.torn && !out.unfinished {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("batch: output: %w", err)
	}
	if out.torn {
		err = f.Truncate(out.end)
	}
	if err == nil && out.unfinished {
		_, err = f.WriteAt([]byte{'\n'}, out.end)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("batch: output: %w", err)
	}
	return nil
}

// dropFailed writes the output again without the failed results of the requests the run covers,
// and without a torn last line: to a new file beside it, synced, renamed over it, so that a crash
// leaves either the old output or the new one, and never two lines for one custom_id. The new
// file is locked before it takes the output's name, and returned open: the run's lock on it.
func dropFailed(path string, h hasher, ids *idSet, shard Shard) (lock *os.File, err error) {
	in, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("batch: output: %w", err)
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return nil, fmt.Errorf("batch: output: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, fmt.Errorf("batch: output: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriterSize(tmp, 64<<10)
	lr := newLineReader(in)
	for {
		line, _, rerr := lr.next()
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return nil, fmt.Errorf("batch: output: %w", rerr)
		}
		o, perr := parseResult(line)
		if perr != nil {
			continue // blank, or the torn last line
		}
		if i, ok := ids.find(h.key(o.customID)); ok && ids.state[i] == failed && shard.Contains(o.customID) {
			continue
		}
		w.Write(line)
		if err := w.WriteByte('\n'); err != nil {
			return nil, fmt.Errorf("batch: output: %w", err)
		}
	}
	if err = w.Flush(); err == nil {
		err = tmp.Chmod(info.Mode().Perm())
	}
	if err == nil {
		err = tmp.Sync()
	}
	if err == nil {
		err = lockFile(tmp)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return nil, fmt.Errorf("batch: output: %w", err)
	}
	syncDir(filepath.Dir(path))
	return tmp, nil
}

// syncDir makes a rename in dir durable, where the system allows it; a failure changes nothing of
// the output's content, only how a machine crash may leave it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
