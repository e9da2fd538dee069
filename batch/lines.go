package batch

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// lineReader reads a file line by line without holding more than one line, whatever the file's
// size: its buffer grows to the longest line read (at most MaxLineSize), and a longer line is
// skipped whole and reported as ErrLineTooLong.
type lineReader struct {
	r    *bufio.Reader
	buf  []byte
	line int   // the number of the line last returned, from 1
	end  int64 // the offset just past the last line returned, its newline included
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line without its newline, and whether it had one (only a file's last line
// may lack it). At the end of the file it returns io.EOF. The line is valid until the next call.
func (lr *lineReader) next() (line []byte, terminated bool, err error) {
	lr.buf = lr.buf[:0]
	tooLong := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		lr.end += int64(len(chunk))
		if !tooLong {
			if len(lr.buf)+len(chunk) > MaxLineSize+1 {
				tooLong, lr.buf = true, lr.buf[:0]
			} else {
				lr.buf = append(lr.buf, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == nil:
			lr.line++
			if tooLong {
				return nil, true, ErrLineTooLong
			}
			return lr.buf[:len(lr.buf)-1], true, nil
		case errors.Is(err, io.EOF):
			if len(lr.buf) == 0 && !tooLong {
				return nil, false, io.EOF
			}
			lr.line++
			if tooLong {
				return nil, false, ErrLineTooLong
			}
			return lr.buf, false, nil
		default:
			return nil, false, err
		}
	}
}

// blank reports whether a line holds only white space, which the input may have between requests.
func blank(line []byte) bool { return len(bytes.TrimSpace(line)) == 0 }
