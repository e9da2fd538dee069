package infergate

import (
	"io"
	"sync"
)

// UploadProgress is how far the upload of a transcription's File has got. TranscriptionRequest's
// Progress receives one at the start of every attempt (Sent 0) and after every read of File.
type UploadProgress struct {
	// Attempt counts the attempts from 1. A retry sends the whole file again: its reports start
	// over at Sent 0 with the next Attempt.
	Attempt int
	Sent    int64 // bytes of File read for sending in this attempt
	Total   int64 // File's size, or -1 for a reader of unknown length (sent once, chunked)
}

// progress reports one upload's advance to the caller's function. Only the latest attempt reports:
// a body the transport is still reading from an abandoned attempt stays silent, so the caller sees
// Sent grow within an attempt and start over only with a new one.
type progress struct {
	report func(UploadProgress)
	total  int64

	mu      sync.Mutex // serialises reports, which come from the transport's goroutines
	attempt int        // the latest attempt that began to read the file
}

// track wraps one attempt's reader of the file; the attempt begins at its first read, not when it
// is made, because go-retryablehttp builds a body once just to learn its length.
func (p *progress) track(file io.Reader) io.Reader {
	if p == nil {
		return file
	}
	return &progressReader{r: file, p: p}
}

type progressReader struct {
	r       io.Reader
	p       *progress
	attempt int // 0 until the first read
	sent    int64
}

func (pr *progressReader) Read(b []byte) (int, error) {
	if pr.attempt == 0 {
		pr.p.mu.Lock()
		pr.p.attempt++
		pr.attempt = pr.p.attempt
		pr.p.mu.Unlock()
		pr.send()
	}
	n, err := pr.r.Read(b)
	if n > 0 {
		pr.sent += int64(n)
		pr.send()
	}
	return n, err
}

func (pr *progressReader) send() {
	pr.p.mu.Lock()
	defer pr.p.mu.Unlock()
	if pr.attempt == pr.p.attempt {
		pr.p.report(UploadProgress{Attempt: pr.attempt, Sent: pr.sent, Total: pr.p.total})
	}
}

// follow reports the upload's progress to report, when set.
func (u *upload) follow(report func(UploadProgress)) {
	if report == nil {
		return
	}
	total := int64(-1)
	if u.at != nil {
		total = u.size
	}
	u.progress = &progress{report: report, total: total}
}
