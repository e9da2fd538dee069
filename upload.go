package infergate

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"math"
	"mime/multipart"
	"net/textproto"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/infergate/infergate-go/internal/transport"
)

// upload is a multipart body laid out as prefix bytes (the form fields and the file part's header),
// the file, and suffix bytes (the closing boundary), so that the file is read straight from its
// source on every attempt instead of being copied into memory.
type upload struct {
	contentType    string
	prefix, suffix []byte
	at             io.ReaderAt // the file, when it can be re-read; its bytes are [start, start+size)
	start, size    int64
	once           io.Reader // the file, when it can be read only once
	used           atomic.Bool
	progress       *progress // nil when nobody follows the upload
}

func filePartHeader(name string) textproto.MIMEHeader {
	escape := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\r", "", "\n", "")
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="`+escape.Replace(name)+`"`)
	h.Set("Content-Type", audioContentType(name))
	return h
}

// extent returns where the unread bytes of file begin and how many there are, when that is known.
func extent(file io.Reader) (start, size int64, known bool, err error) {
	if seeker, ok := file.(io.Seeker); ok {
		if start, err = seeker.Seek(0, io.SeekCurrent); err != nil {
			// A pipe or socket cannot seek: it is read once.
			return 0, 0, false, nil
		}
	}
	switch f := file.(type) {
	case *os.File:
		info, err := f.Stat()
		if err != nil {
			return 0, 0, false, err
		}
		if !info.Mode().IsRegular() {
			return 0, 0, false, nil
		}
		return start, max(info.Size()-start, 0), true, nil
	case interface{ Size() int64 }:
		return start, max(f.Size()-start, 0), true, nil
	case interface{ Len() int }:
		return start, int64(f.Len()), true, nil
	}
	return 0, 0, false, nil
}

// sizedReader reports its remaining length so that go-retryablehttp sets an exact Content-Length.
type sizedReader struct {
	r         io.Reader
	remaining int64
}

// markingReader records that a read-once file has started to be sent.
type markingReader struct {
	r    io.Reader
	used *atomic.Bool
}

func (c *config) newUpload(ctx context.Context, req *TranscriptionRequest) (*upload, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range c.formFields(req) {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			return nil, errorf("infergate: encoding transcription form: %w", err)
		}
	}
	u := &upload{contentType: mw.FormDataContentType()}
	if req.File != nil {
		name := req.uploadName()
		if _, err := mw.CreatePart(filePartHeader(name)); err != nil {
			return nil, errorf("infergate: encoding transcription form: %w", err)
		}
		if err := u.setFile(req.File); err != nil {
			return nil, err
		}
		u.follow(req.Progress)
		if u.at != nil && u.size > LargeUploadSize {
			c.logger.LogAttrs(ctx, slog.LevelWarn,
				"infergate: audio file is over 25 MB; the gateway recommends S3PresignedURL for large files",
				slog.String("file", name), slog.Int64("bytes", u.size))
		}
	}
	u.prefix = bytes.Clone(buf.Bytes())
	buf.Reset()
	if err := mw.Close(); err != nil {
		return nil, errorf("infergate: encoding transcription form: %w", err)
	}
	u.suffix = buf.Bytes()
	return u, nil
}

// formFields lists the form values in a stable order; unset options are left out so that the
// gateway applies its defaults.
func (c *config) formFields(req *TranscriptionRequest) [][2]string {
	var fields [][2]string
	add := func(name, value string) {
		if value != "" {
			fields = append(fields, [2]string{name, value})
		}
	}
	add("s3_presigned_url", req.S3PresignedURL)
	add("model", req.Model)
	add("language", req.Language)
	add("prompt", req.Prompt)
	add("response_format", string(req.ResponseFormat))
	if req.Temperature != nil {
		add("temperature", strconv.FormatFloat(*req.Temperature, 'f', -1, 64))
	}
	grans := make([]string, len(req.TimestampGranularities))
	for i, g := range req.TimestampGranularities {
		grans[i] = string(g)
	}
	// The gateway reads one comma-separated value, not a repeated field.
	add("timestamp_granularities", strings.Join(grans, ","))
	if req.EnableDiarization {
		add("enable_diarization", "true")
	}
	add("output_content", req.OutputContent)
	add("session_id", c.sessionFor(req.SessionID))
	return fields
}

// setFile decides how the file is read: by offset when its size is knowable, else once.
func (u *upload) setFile(file io.Reader) error {
	at, ok := file.(io.ReaderAt)
	if !ok {
		u.once = file
		return nil
	}
	start, size, known, err := extent(file)
	if err != nil {
		return errorf("infergate: reading audio file size: %w", err)
	}
	if !known {
		u.once = file
		return nil
	}
	u.at, u.start, u.size = at, start, size
	return nil
}

func (u *upload) rewindable() bool { return u.once == nil }

// body gives go-retryablehttp the request body: bytes when there is no file, else a function that
// builds a fresh body per attempt. go-retryablehttp also calls that function once when the request
// is built, to learn the length, so building a body reads nothing.
func (u *upload) body() any {
	switch {
	case u.at != nil:
		total := int64(len(u.prefix)) + u.size + int64(len(u.suffix))
		return retryablehttp.ReaderFunc(func() (io.Reader, error) {
			r := io.MultiReader(bytes.NewReader(u.prefix), u.progress.track(io.NewSectionReader(u.at, u.start, u.size)),
				bytes.NewReader(u.suffix))
			return &sizedReader{r: r, remaining: total}, nil
		})
	case u.once == nil:
		return append(u.prefix, u.suffix...)
	}
	return retryablehttp.ReaderFunc(func() (io.Reader, error) {
		if u.used.Load() {
			return nil, errReaderUsed
		}
		return io.MultiReader(bytes.NewReader(u.prefix), u.progress.track(&markingReader{r: u.once, used: &u.used}),
			bytes.NewReader(u.suffix)), nil
	})
}

func (s *sizedReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.remaining -= int64(n)
	if err != nil && err != io.EOF {
		// The file failed, not the network: sending it again would fail the same way.
		err = transport.Permanent(errorf("infergate: reading the audio file: %w", err))
	}
	return n, err
}

func (s *sizedReader) Len() int { return int(min(s.remaining, math.MaxInt)) }

func (m *markingReader) Read(p []byte) (int, error) {
	m.used.Store(true)
	return m.r.Read(p)
}

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
