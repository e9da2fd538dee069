package infergate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/infergate/infergate-go/internal/subtitle"
)

// AudioService transcribes audio. Get it as Client.Audio.
type AudioService struct{ client *Client }

// TranscriptionFormat selects the shape of a transcription.
type TranscriptionFormat string

// The transcription formats the gateway produces.
const (
	TranscriptionFormatJSON        TranscriptionFormat = "json"         // the text only (the default)
	TranscriptionFormatText        TranscriptionFormat = "text"         // plain text
	TranscriptionFormatSRT         TranscriptionFormat = "srt"          // SubRip subtitles
	TranscriptionFormatVerboseJSON TranscriptionFormat = "verbose_json" // text, language, duration, segments and words
	TranscriptionFormatVTT         TranscriptionFormat = "vtt"          // WebVTT subtitles
)

// TimestampGranularity asks for timestamps per word or per segment in a TranscriptionFormatVerboseJSON answer.
type TimestampGranularity string

// The timestamp granularities.
const (
	TimestampGranularityWord    TimestampGranularity = "word"
	TimestampGranularitySegment TimestampGranularity = "segment"
)

// LargeUploadSize is the size in bytes (25 MiB, the "25 MB" of the gateway's documentation) above
// which the gateway recommends a pre-signed URL over a direct upload. It is a recommendation, not a
// documented limit: larger files are still sent, with a warning in the client's log.
const LargeUploadSize = 25 << 20

// audioTypes maps the extensions of audio files to the Content-Type of the uploaded part. The
// gateway's documentation names mp3, mp4, mpeg, mpga, m4a, wav and webm; the Whisper-style servers
// behind it also read flac and ogg, and those built on ffmpeg nearly anything, so the SDK refuses no
// format: an extension missing here is sent as application/octet-stream, for the server to decide.
var audioTypes = map[string]string{
	"mp3": "audio/mpeg", "mpeg": "audio/mpeg", "mpga": "audio/mpeg",
	"mp4": "audio/mp4", "m4a": "audio/mp4",
	"wav": "audio/wav", "webm": "audio/webm", "weba": "audio/webm",
	"ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/opus", "flac": "audio/flac",
	"aac": "audio/aac", "aif": "audio/aiff", "aiff": "audio/aiff", "amr": "audio/amr",
	"3gp": "audio/3gpp", "mka": "audio/x-matroska", "wma": "audio/x-ms-wma",
}

// audioContentType is the Content-Type of an upload named name, from its extension.
func audioContentType(name string) string {
	if t, ok := audioTypes[strings.ToLower(strings.TrimPrefix(filepath.Ext(name), "."))]; ok {
		return t
	}
	return "application/octet-stream"
}

// TranscriptionRequest describes the audio to transcribe and how. Give exactly one of File and
// S3PresignedURL.
type TranscriptionRequest struct {
	// File is the audio to upload. It is streamed, never held in memory. When it is an io.ReaderAt
	// of knowable size (*os.File, *bytes.Reader, *strings.Reader, *io.SectionReader) the upload has
	// an exact Content-Length and is retried like any call, re-sending the bytes from where File's
	// read position was; File's position itself is not moved. Any other reader is sent once, without
	// retries. The caller closes File.
	File io.Reader
	// FileName names the upload; the server tells the format by its extension (mp3, mp4, mpeg, mpga,
	// m4a, wav, webm, flac, ogg, opus...), which also sets the part's Content-Type. It defaults to
	// the base name of an *os.File. The SDK refuses no extension: the server decides what it reads.
	FileName string
	// S3PresignedURL points at the audio in object storage, the way to send files over 25 MB.
	S3PresignedURL string

	Model    string // the transcription model's name or hex id; empty lets the gateway choose
	Language string // the spoken language as a code such as "en"; empty detects it
	Prompt   string // text that guides spelling of names and terms
	// ResponseFormat is the answer's shape; empty means TranscriptionFormatJSON.
	ResponseFormat TranscriptionFormat
	// Temperature is the sampling temperature, 0 to 1; nil leaves it to the model.
	Temperature *float64
	// TimestampGranularities asks for word and/or segment timestamps; TranscriptionFormatVerboseJSON only.
	TimestampGranularities []TimestampGranularity
	// EnableDiarization labels speakers, on models that support it (see TranscriptionSegment.Speaker).
	EnableDiarization bool
	OutputContent     string // the output content type, for advanced use
	// SessionID runs the request in this provider session; empty uses the client's (WithSessionID)
	// or, failing that, the session tied to the API key.
	SessionID string
	// Progress, when set, follows the upload of File: it is called at the start of every attempt
	// and after every read of File, one call at a time, from the goroutine that sends the body, so
	// it must return quickly. Unset, an upload costs nothing more.
	Progress func(UploadProgress)
}

// Validate reports the first rule the request breaks, as a *ValidationError. Transcribe calls it
// before sending anything. Of the file it refuses only what cannot be a recording, whatever the
// server: no FileName, a directory, or a file with nothing left to read; the audio format is the
// server's to judge.
func (r *TranscriptionRequest) Validate() error {
	if r.File != nil && isNilPointer(r.File) {
		return invalid("File", "is a nil %T", r.File)
	}
	hasFile, hasURL := r.File != nil, r.S3PresignedURL != ""
	switch {
	case hasFile && hasURL:
		return invalid("File", "give either File or S3PresignedURL, not both")
	case !hasFile && !hasURL:
		return invalid("File", "give File or S3PresignedURL")
	}
	if hasFile {
		if err := r.checkFile(); err != nil {
			return err
		}
	}
	switch r.ResponseFormat {
	case "", TranscriptionFormatJSON, TranscriptionFormatText, TranscriptionFormatSRT, TranscriptionFormatVerboseJSON, TranscriptionFormatVTT:
	default:
		return invalid("ResponseFormat", "%q is not one of json, text, srt, verbose_json, vtt", r.ResponseFormat)
	}
	if t := r.Temperature; t != nil && !(*t >= 0 && *t <= 1) {
		return invalid("Temperature", "%v is outside 0 to 1", *t)
	}
	for _, g := range r.TimestampGranularities {
		if g != TimestampGranularityWord && g != TimestampGranularitySegment {
			return invalid("TimestampGranularities", "%q is not word or segment", g)
		}
	}
	if len(r.TimestampGranularities) > 0 && r.ResponseFormat != TranscriptionFormatVerboseJSON {
		return invalid("TimestampGranularities", "only apply with ResponseFormat verbose_json")
	}
	return nil
}

// isNilPointer reports whether a reader is a typed nil, such as a nil *os.File, which is not nil as
// an io.Reader but panics when read.
func isNilPointer(r io.Reader) bool {
	v := reflect.ValueOf(r)
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// checkFile refuses a file that cannot be a recording. It moves no read position.
func (r *TranscriptionRequest) checkFile() error {
	if r.uploadName() == "" {
		return invalid("FileName", "is required with File: the server tells the audio format by its extension")
	}
	if f, ok := r.File.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.IsDir() {
			return invalid("File", "%s is a directory, not an audio file", filepath.Base(f.Name()))
		}
	}
	if _, size, known, err := extent(r.File); err == nil && known && size == 0 {
		return invalid("File", "is empty: it has no bytes left to read from its current position")
	}
	return nil
}

// uploadName is the FileName, or the name of the file File reads.
func (r *TranscriptionRequest) uploadName() string {
	if r.FileName != "" {
		return r.FileName
	}
	if f, ok := r.File.(*os.File); ok {
		return filepath.Base(f.Name())
	}
	return ""
}

// Transcribe turns audio into text or subtitles. The request is sent as multipart/form-data,
// streaming File rather than loading it; see TranscriptionRequest.File for when it is retried.
// Transcription.Raw keeps the exact answer, whatever its format.
//
// POST /api/v1/audio/transcriptions
func (s *AudioService) Transcribe(ctx context.Context, req TranscriptionRequest, opts ...Option) (*Transcription, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	c, err := s.client.configure(opts)
	if err != nil {
		return nil, err
	}
	body, err := c.newUpload(ctx, &req)
	if err != nil {
		return nil, err
	}
	// A file that can be read only once cannot be sent twice: a second attempt would upload a
	// truncated file.
	r := route{op: OperationTranscription, method: http.MethodPost, path: "/audio/transcriptions",
		body: body.body(), contentType: body.contentType, once: !body.rewindable(), model: req.Model}
	if c.observed() {
		r.request = Ptr(req)
	}
	var t *Transcription
	err = exchange(ctx, c, &r, func(resp *http.Response, raw []byte) (any, error) {
		if err := c.errorIn200(&r, resp, raw); err != nil {
			return nil, err
		}
		if t, err = decodeTranscription(raw, req.ResponseFormat); err != nil {
			return nil, c.newDecodeError(resp.StatusCode, resp.Header, raw, err)
		}
		return t, nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// TranscribeFile transcribes the audio file at path: it opens the file, sends it as req.File (named
// after the file unless req.FileName is set) and closes it. Being a file, the upload is retried
// like any other call.
//
// POST /api/v1/audio/transcriptions
func (s *AudioService) TranscribeFile(ctx context.Context, path string, req TranscriptionRequest, opts ...Option) (*Transcription, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errorf("infergate: opening audio: %w", err)
	}
	defer f.Close()
	req.File = f
	if req.FileName == "" {
		req.FileName = filepath.Base(path)
	}
	return s.Transcribe(ctx, req, opts...)
}

var errReaderUsed = errors.New("infergate: the audio reader was already consumed and cannot be sent again")

// Transcription is the transcribed audio. Times are float seconds throughout, as the gateway sends
// them in verbose_json; cues parsed from srt and vtt answers use the same unit, so a segment reads
// the same whatever format produced it.
type Transcription struct {
	// Text is the transcript. For text, srt and vtt it is the body as received, subtitles included.
	Text     string  `json:"text"`
	Language string  `json:"language,omitempty"` // the detected language as the gateway names it, e.g. "english" (verbose_json)
	Duration float64 `json:"duration,omitempty"` // the audio's length in seconds (verbose_json)
	Task     string  `json:"task,omitempty"`     // "transcribe" (verbose_json)
	// Segments are the timed pieces of the transcript: from verbose_json, or the cues of an srt or
	// vtt answer.
	Segments []TranscriptionSegment `json:"segments,omitempty"`
	Words    []TranscriptionWord    `json:"words,omitempty"`  // per-word timings, when word granularity was asked for
	Usage    *TranscriptionUsage    `json:"usage,omitempty"`  // what the transcription cost, when the gateway says
	Format   TranscriptionFormat    `json:"format,omitempty"` // the format the answer was asked in
	Raw      []byte                 `json:"-"`                // the response body exactly as received, e.g. for diarization details
}

// TranscriptionSegment is a timed piece of a transcript.
type TranscriptionSegment struct {
	// ID numbers the segment: as sent in verbose_json, or the cue's position from 1 in srt and vtt.
	ID    int     `json:"id"`
	Start float64 `json:"start"` // seconds from the start of the audio
	End   float64 `json:"end"`   // seconds from the start of the audio
	Text  string  `json:"text"`  // as sent, markup and speaker prefixes included
	// Speaker labels the voice when diarization found one: a "speaker" or "speaker_label" key on
	// the segment, a WebVTT voice tag (<v Name>), or a pyannote-style "SPEAKER_00:" prefix of the
	// text, in that order. Empty when none is given.
	Speaker string `json:"speaker,omitempty"`

	// The decoder's statistics, verbose_json only.
	Seek        int     `json:"seek,omitempty"`
	Tokens      []int   `json:"tokens,omitempty"`      // the decoder's token ids for the segment
	Temperature float64 `json:"temperature,omitempty"` // the sampling temperature the segment was decoded at
	// AvgLogprob is the mean log probability of the segment's tokens; Whisper deems a decode below -1
	// failed.
	AvgLogprob float64 `json:"avg_logprob,omitempty"`
	// CompressionRatio is the text's gzip compression ratio; Whisper deems above 2.4 repetitive.
	CompressionRatio float64 `json:"compression_ratio,omitempty"`
	NoSpeechProb     float64 `json:"no_speech_prob,omitempty"` // probability, 0 to 1, that the segment holds no speech
}

// TranscriptionWord is one word's timing.
type TranscriptionWord struct {
	Word    string  `json:"word"`              // the word as transcribed
	Start   float64 `json:"start"`             // seconds
	End     float64 `json:"end"`               // seconds
	Speaker string  `json:"speaker,omitempty"` // the "speaker" key of the word, when diarization gives one
}

// TranscriptionUsage is what a transcription cost: tokens, or seconds of audio.
type TranscriptionUsage struct {
	Type         string  `json:"type"`          // "tokens" or "duration"
	InputTokens  int     `json:"input_tokens"`  // audio and prompt tokens read, when Type is "tokens"
	OutputTokens int     `json:"output_tokens"` // text tokens written, when Type is "tokens"
	TotalTokens  int     `json:"total_tokens"`  // InputTokens plus OutputTokens, when Type is "tokens"
	Seconds      float64 `json:"seconds"`       // seconds of audio billed, when Type is "duration"
}

// decodeTranscription shapes a successful answer by the format asked for. JSON formats tolerate a
// plain-text body (some providers answer text whatever was asked); text formats tolerate a body
// that is a JSON string (what a server returning a bare string as JSON sends).
func decodeTranscription(raw []byte, format TranscriptionFormat) (*Transcription, error) {
	if format == "" {
		format = TranscriptionFormatJSON
	}
	t := &Transcription{Format: format, Raw: raw}
	trimmed := bytes.TrimSpace(raw)
	switch {
	case (format == TranscriptionFormatJSON || format == TranscriptionFormatVerboseJSON) && bytes.HasPrefix(trimmed, []byte("{")):
		var w wireTranscription
		if err := json.Unmarshal(trimmed, &w); err != nil {
			return nil, err
		}
		w.fill(t)
	default:
		t.Text = plainText(raw, trimmed)
		switch format {
		case TranscriptionFormatSRT:
			t.Segments = segmentsFromCues(subtitle.ParseSRT(t.Text))
		case TranscriptionFormatVTT:
			t.Segments = segmentsFromCues(subtitle.ParseVTT(t.Text))
		}
	}
	return t, nil
}

// plainText returns a text body as is, unwrapping it when it came JSON-encoded as a string.
func plainText(raw, trimmed []byte) string {
	if bytes.HasPrefix(trimmed, []byte(`"`)) {
		var s string
		if json.Unmarshal(trimmed, &s) == nil {
			return s
		}
	}
	return string(raw)
}

type wireTranscription struct {
	Text     string              `json:"text"`
	Language string              `json:"language"`
	Duration number              `json:"duration"`
	Task     string              `json:"task"`
	Segments []wireSegment       `json:"segments"`
	Words    []wireWord          `json:"words"`
	Usage    *TranscriptionUsage `json:"usage"`
}

type wireSegment struct {
	ID               number          `json:"id"`
	Seek             number          `json:"seek"`
	Start            number          `json:"start"`
	End              number          `json:"end"`
	Text             string          `json:"text"`
	Tokens           []number        `json:"tokens"`
	Temperature      number          `json:"temperature"`
	AvgLogprob       number          `json:"avg_logprob"`
	CompressionRatio number          `json:"compression_ratio"`
	NoSpeechProb     number          `json:"no_speech_prob"`
	Speaker          json.RawMessage `json:"speaker"`
	SpeakerLabel     json.RawMessage `json:"speaker_label"`
}

type wireWord struct {
	Word    string          `json:"word"`
	Start   number          `json:"start"`
	End     number          `json:"end"`
	Speaker json.RawMessage `json:"speaker"`
}

func (w *wireTranscription) fill(t *Transcription) {
	t.Text, t.Language, t.Duration, t.Task, t.Usage = w.Text, w.Language, float64(w.Duration), w.Task, w.Usage
	if len(w.Segments) > 0 {
		t.Segments = make([]TranscriptionSegment, len(w.Segments))
	}
	for i, s := range w.Segments {
		t.Segments[i] = TranscriptionSegment{
			ID: int(s.ID), Seek: int(s.Seek), Start: float64(s.Start), End: float64(s.End), Text: s.Text,
			Tokens: tokens(s.Tokens), Temperature: float64(s.Temperature), AvgLogprob: float64(s.AvgLogprob),
			CompressionRatio: float64(s.CompressionRatio), NoSpeechProb: float64(s.NoSpeechProb),
			Speaker: firstNonEmpty(label(s.Speaker), label(s.SpeakerLabel), subtitle.Speaker(s.Text)),
		}
	}
	if len(w.Words) > 0 {
		t.Words = make([]TranscriptionWord, len(w.Words))
	}
	for i, word := range w.Words {
		t.Words[i] = TranscriptionWord{Word: word.Word, Start: float64(word.Start), End: float64(word.End),
			Speaker: label(word.Speaker)}
	}
}

func tokens(ns []number) []int {
	if ns == nil {
		return nil
	}
	out := make([]int, len(ns))
	for i, n := range ns {
		out[i] = int(n)
	}
	return out
}

// number is a JSON number that providers sometimes send as a string, or as null.
type number float64

// UnmarshalJSON leaves n at zero for null and for a string that is not a number, so that one odd
// statistic does not cost the whole transcript.
func (n *number) UnmarshalJSON(b []byte) error {
	if unquoted, err := strconv.Unquote(string(b)); err == nil {
		if f, err := strconv.ParseFloat(unquoted, 64); err == nil {
			*n = number(f)
		}
		return nil
	}
	if string(b) == "null" {
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("infergate: %s is not a number", bytes.TrimSpace(b))
	}
	*n = number(f)
	return nil
}

func segmentsFromCues(cues []subtitle.Cue) []TranscriptionSegment {
	if len(cues) == 0 {
		return nil
	}
	segs := make([]TranscriptionSegment, len(cues))
	for i, c := range cues {
		segs[i] = TranscriptionSegment{ID: i + 1, Start: c.Start.Seconds(), End: c.End.Seconds(), Text: c.Text,
			Speaker: firstNonEmpty(subtitle.Voice(c.Text), subtitle.Speaker(c.Text))}
	}
	return segs
}

// label reads a speaker given as a string or a number; other shapes are left to Raw.
func label(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == '{' || raw[0] == '[' {
		return ""
	}
	return scalarText(raw)
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
