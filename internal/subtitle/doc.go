// Package subtitle reads SubRip (SRT) and WebVTT cues leniently: transcription providers differ in
// line endings, index lines, cue settings and header blocks, and a subtitle that is slightly off
// should still yield its cues rather than an error. It also reads who speaks in a cue's text: a
// WebVTT voice span or a diarizer's "SPEAKER_00:" label.
//
// What it promises: ParseSRT and ParseVTT never fail and never panic; a block without a readable
// timing line is skipped, the others kept in order with their text as sent. Speaker and Voice give ""
// when the text names no speaker.
package subtitle
