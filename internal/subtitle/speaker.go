package subtitle

import (
	"regexp"
	"strings"
)

var (
	speakerPrefix = regexp.MustCompile(`^\s*\[?(SPEAKER_\d+)\]?\s*:`)
	voiceSpan     = regexp.MustCompile(`^\s*<v(?:\.[^\s>]*)?\s+([^>]+)>`)
)

// Speaker reads a pyannote-style label ("SPEAKER_00: text" or "[SPEAKER_00]: text").
func Speaker(text string) string {
	if m := speakerPrefix.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}

// Voice reads the speaker of a WebVTT voice span ("<v Roger>text" or "<v.loud Roger>text").
func Voice(text string) string {
	if m := voiceSpan.FindStringSubmatch(text); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}
