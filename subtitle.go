package infergate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/infergate/infergate-go/internal/subtitle"
)

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
			Speaker: firstNonEmpty(label(s.Speaker), label(s.SpeakerLabel), speakerInText(s.Text)),
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
			Speaker: firstNonEmpty(voiceTag(c.Text), speakerInText(c.Text))}
	}
	return segs
}

var (
	speakerPrefix = regexp.MustCompile(`^\s*\[?(SPEAKER_\d+)\]?\s*:`)
	voiceSpan     = regexp.MustCompile(`^\s*<v(?:\.[^\s>]*)?\s+([^>]+)>`)
)

// label reads a speaker given as a string or a number; other shapes are left to Raw.
func label(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == '{' || raw[0] == '[' {
		return ""
	}
	return scalarText(raw)
}

// speakerInText reads a pyannote-style label ("SPEAKER_00: text" or "[SPEAKER_00]: text").
func speakerInText(text string) string {
	if m := speakerPrefix.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}

// voiceTag reads the speaker of a WebVTT voice span ("<v Roger>text" or "<v.loud Roger>text").
func voiceTag(text string) string {
	if m := voiceSpan.FindStringSubmatch(text); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
