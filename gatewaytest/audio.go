package gatewaytest

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Transcript scripts what POST /audio/transcriptions answers, in every
// response_format.
type Transcript struct {
	Language string  // a full name as the gateway reports it; "english" when empty
	Duration float64 // seconds; the last segment's end when zero
	// Segments are the timed pieces, in order; the text, srt and vtt answers are made from them.
	Segments []Segment
}

// Segment is one timed piece of a transcript. Times are seconds.
type Segment struct {
	Start, End float64 // seconds from the start of the audio
	Text       string  // sent as is in verbose_json, trimmed in text, srt and vtt
	// Speaker labels the segment when the request sets enable_diarization;
	// "SPEAKER_00" when empty.
	Speaker string
	// Words are sent when timestamp_granularities includes word; when nil the
	// words of Text are spread evenly over the segment.
	Words []Word
}

// Word is one timed word of a transcript. Times are seconds.
type Word struct {
	Word  string  `json:"word"`  // the word's text
	Start float64 `json:"start"` // seconds from the start of the audio
	End   float64 `json:"end"`   // seconds from the start of the audio
}

// DefaultTranscript is what a server transcribes unless told otherwise: one
// segment "Hello" from 0 to 2 seconds.
func DefaultTranscript() Transcript {
	return Transcript{Segments: []Segment{{Start: 0, End: 2, Text: "Hello"}}}
}

// WithTranscript sets the transcript every transcription returns.
func WithTranscript(t Transcript) ServerOption { return func(c *config) { c.transcript = &t } }

// SetTranscript replaces the transcript later transcriptions return.
func (s *Server) SetTranscript(t Transcript) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.transcript = t
}

var (
	audioFormats = []string{"json", "text", "srt", "verbose_json", "vtt"}
	// audioExtensions are the formats a Whisper-style server reads: the gateway's documented list,
	// plus flac, ogg and opus.
	audioExtensions = []string{"mp3", "mp4", "mpeg", "mpga", "m4a", "wav", "webm", "flac", "ogg", "oga", "opus"}
)

// maxField bounds a non-file form field; only the file part may be large.
const maxField = 1 << 20

func (s *Server) handleTranscription(w http.ResponseWriter, r *http.Request) {
	const neither = "Either 'file' or 's3_presigned_url' must be provided"
	mr, err := r.MultipartReader()
	if err != nil {
		detail(w, http.StatusBadRequest, neither)
		return
	}
	form := map[string]string{}
	var file *UploadedFile
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			detail(w, http.StatusBadRequest, "Invalid multipart body: "+err.Error())
			return
		}
		if p.FormName() == "file" {
			// Hash while reading so even a huge upload costs a few KiB.
			h := sha256.New()
			n, err := io.Copy(h, p)
			if err != nil {
				detail(w, http.StatusBadRequest, "Invalid multipart body: "+err.Error())
				return
			}
			file = &UploadedFile{Filename: p.FileName(), Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}
			continue
		}
		b, err := io.ReadAll(io.LimitReader(p, maxField))
		if err != nil {
			detail(w, http.StatusBadRequest, "Invalid multipart body: "+err.Error())
			return
		}
		form[p.FormName()] = string(b)
	}
	s.updateRecord(r, func(rec *Request) { rec.Form, rec.File = form, file })

	url := form["s3_presigned_url"]
	switch {
	case file == nil && url == "":
		detail(w, http.StatusBadRequest, neither)
		return
	case file != nil && url != "":
		detail(w, http.StatusBadRequest, "Provide either 'file' or 's3_presigned_url', not both")
		return
	}
	if file != nil {
		ext := strings.ToLower(strings.TrimPrefix(path.Ext(file.Filename), "."))
		if !slices.Contains(audioExtensions, ext) {
			detail(w, http.StatusBadRequest, fmt.Sprintf("Unsupported file format '%s'. Supported formats: %s",
				ext, strings.Join(audioExtensions, ", ")))
			return
		}
	}
	format := form["response_format"]
	if format == "" {
		format = "json"
	}
	if !slices.Contains(audioFormats, format) {
		detail(w, http.StatusBadRequest, fmt.Sprintf("Invalid response_format '%s'. Must be one of: %s",
			format, strings.Join(audioFormats, ", ")))
		return
	}
	words := false
	if g := form["timestamp_granularities"]; g != "" {
		for _, v := range strings.Split(g, ",") {
			switch strings.TrimSpace(v) {
			case "word":
				words = true
			case "segment":
			default:
				detail(w, http.StatusBadRequest, fmt.Sprintf("Invalid timestamp_granularities value '%s'. Allowed: word, segment", v))
				return
			}
		}
	}
	if t := form["temperature"]; t != "" {
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || f < 0 || f > 1 {
			detail(w, http.StatusBadRequest, "temperature must be a number from 0.0 to 1.0")
			return
		}
	}
	diarize, _ := strconv.ParseBool(form["enable_diarization"])

	s.mu.Lock()
	t := s.transcript
	s.mu.Unlock()
	switch format {
	case "text":
		plain(w, t.text())
	case "srt":
		plain(w, t.subtitles(false))
	case "vtt":
		plain(w, "WEBVTT\n\n"+t.subtitles(true))
	case "json":
		writeJSON(w, http.StatusOK, map[string]any{"text": t.text()})
	default:
		writeJSON(w, http.StatusOK, t.verbose(words, diarize))
	}
}

func plain(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, body)
}

func (t Transcript) text() string {
	parts := make([]string, len(t.Segments))
	for i, s := range t.Segments {
		parts[i] = strings.TrimSpace(s.Text)
	}
	return strings.Join(parts, " ")
}

// subtitles renders SRT cues, or VTT cues (without the header) when vtt is set.
func (t Transcript) subtitles(vtt bool) string {
	var b strings.Builder
	for i, s := range t.Segments {
		if !vtt {
			fmt.Fprintf(&b, "%d\n", i+1)
		}
		fmt.Fprintf(&b, "%s --> %s\n%s\n\n", stamp(s.Start, vtt), stamp(s.End, vtt), strings.TrimSpace(s.Text))
	}
	return b.String()
}

// stamp formats seconds as HH:MM:SS,mmm (SRT) or HH:MM:SS.mmm (VTT).
func stamp(sec float64, vtt bool) string {
	ms := int64(math.Round(sec * 1000))
	sep := ","
	if vtt {
		sep = "."
	}
	return fmt.Sprintf("%02d:%02d:%02d%s%03d", ms/3600000, ms/60000%60, ms/1000%60, sep, ms%1000)
}

func (t Transcript) verbose(withWords, diarize bool) map[string]any {
	lang := t.Language
	if lang == "" {
		lang = "english"
	}
	dur := t.Duration
	if dur == 0 && len(t.Segments) > 0 {
		dur = t.Segments[len(t.Segments)-1].End
	}
	segs := make([]any, len(t.Segments))
	allWords := []Word{}
	for i, s := range t.Segments {
		ws := s.Words
		if ws == nil {
			ws = spreadWords(s)
		}
		allWords = append(allWords, ws...)
		tokens := make([]int, len(ws))
		for j := range tokens {
			tokens[j] = 1000 + j
		}
		seg := map[string]any{
			"id": i, "seek": 0, "start": s.Start, "end": s.End, "text": s.Text, "tokens": tokens,
			"temperature": 0.0, "avg_logprob": -0.25, "compression_ratio": 1.2, "no_speech_prob": 0.01,
		}
		if diarize {
			seg["speaker"] = cmp.Or(s.Speaker, "SPEAKER_00")
		}
		segs[i] = seg
	}
	out := map[string]any{"task": "transcribe", "language": lang, "duration": dur, "text": t.text(), "segments": segs}
	if withWords {
		out["words"] = allWords
	}
	return out
}

// spreadWords times a segment's words evenly, for scripts that give only text.
func spreadWords(s Segment) []Word {
	fields := strings.Fields(s.Text)
	out := make([]Word, len(fields))
	step := (s.End - s.Start) / float64(max(len(fields), 1))
	for i, f := range fields {
		out[i] = Word{Word: f, Start: s.Start + step*float64(i), End: s.Start + step*float64(i+1)}
	}
	return out
}
