package subtitle

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func TestParseSRT(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []Cue
	}{
		{
			name: "gateway sample",
			doc:  "1\n00:00:00,000 --> 00:00:02,000\nHello\n\n",
			want: []Cue{{ID: "1", Start: 0, End: ms(2000), Text: "Hello"}},
		},
		{
			name: "CRLF, two cues, multi-line text",
			doc:  "1\r\n00:00:01,500 --> 00:00:03,250\r\nHello\r\nworld\r\n\r\n2\r\n01:02:03,004 --> 01:02:05,000\r\nBye\r\n",
			want: []Cue{
				{ID: "1", Start: ms(1500), End: ms(3250), Text: "Hello\nworld"},
				{ID: "2", Start: time.Hour + 2*time.Minute + ms(3004), End: time.Hour + 2*time.Minute + ms(5000), Text: "Bye"},
			},
		},
		{
			name: "lone CR endings, BOM, extra blank lines, missing index, dot separator",
			doc:  "\uFEFF\r\r\r00:00:00.100 --> 00:00:00.900\rA\r\r\r\r",
			want: []Cue{{Start: ms(100), End: ms(900), Text: "A"}},
		},
		{
			name: "coordinates after the end time",
			doc:  "7\n00:00:01,000 --> 00:00:02,000 X1:100 X2:200 Y1:10 Y2:20\nPositioned\n",
			want: []Cue{{ID: "7", Start: ms(1000), End: ms(2000), Text: "Positioned"}},
		},
		{
			name: "cue without text",
			doc:  "1\n00:00:01,000 --> 00:00:02,000\n\n2\n00:00:02,000 --> 00:00:03,000\nB",
			want: []Cue{{ID: "1", Start: ms(1000), End: ms(2000)}, {ID: "2", Start: ms(2000), End: ms(3000), Text: "B"}},
		},
		{
			name: "broken timing skipped",
			doc:  "1\n00:00:xx,000 --> 00:00:02,000\nLost\n\n2\n00:00:02,000 --> 00:00:03,000\nKept\n",
			want: []Cue{{ID: "2", Start: ms(2000), End: ms(3000), Text: "Kept"}},
		},
		{name: "empty", doc: "", want: nil},
		{name: "not subtitles", doc: "just some text\nwith lines\n", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ParseSRT(tt.doc)); diff != "" {
				t.Errorf("ParseSRT mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseVTT(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []Cue
	}{
		{
			name: "gateway sample",
			doc:  "WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nHello\n\n",
			want: []Cue{{Start: 0, End: ms(2000), Text: "Hello"}},
		},
		{
			name: "header text, NOTE, STYLE, REGION, ids, settings, optional hours",
			doc: "WEBVTT - a title\nKind: captions\n\nNOTE a comment\nspanning lines\n\n" +
				"STYLE\n::cue { color: red }\n\nREGION\nid:fred width:40%\n\n" +
				"intro\n00:01.250 --> 00:03.000 align:start position:10%\n<v Roger>Hi there</v>\n\n" +
				"00:00:04.000 --> 00:00:05.500 line:0\nSecond\nline\n",
			want: []Cue{
				{ID: "intro", Start: ms(1250), End: ms(3000), Text: "<v Roger>Hi there</v>"},
				{Start: ms(4000), End: ms(5500), Text: "Second\nline"},
			},
		},
		{
			name: "CRLF and long hours",
			doc:  "WEBVTT\r\n\r\n100:00:00.000 --> 100:00:01.5\r\nLate\r\n",
			want: []Cue{{Start: 100 * time.Hour, End: 100*time.Hour + ms(1500), Text: "Late"}},
		},
		{name: "header only", doc: "WEBVTT\n", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ParseVTT(tt.doc)); diff != "" {
				t.Errorf("ParseVTT mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseTimestamp(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"00:00:01,000", time.Second, true},
		{"00:01.5", ms(1500), true},
		{"1:02:03.123456789", time.Hour + 2*time.Minute + 3*time.Second + 123456789, true},
		{"00:00:01.1234567891", time.Second + 123456789, true},
		{"00:01", time.Second, true},
		{"1234567:00:00.000", 0, false},
		{"00:00:01.x", 0, false},
		{"-1:00.000", 0, false},
		{"+1:00.000", 0, false},
		{"01", 0, false},
		{"1:2:3:4", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseTimestamp(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseTimestamp(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// checkCues asserts what must hold for any input: a cue never invents text, and there are never
// more cues than timing arrows in the document.
func checkCues(t *testing.T, doc string, cues []Cue) {
	t.Helper()
	if n := strings.Count(doc, "-->"); len(cues) > n {
		t.Fatalf("%d cues from a document with %d arrows", len(cues), n)
	}
	flat := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(doc)
	for _, c := range cues {
		if c.Start < 0 || c.End < 0 {
			t.Fatalf("negative time in %+v", c)
		}
		if !strings.Contains(flat, c.Text) || !strings.Contains(flat, c.ID) {
			t.Fatalf("cue %+v holds text the document does not", c)
		}
	}
}

func FuzzParseSRT(f *testing.F) {
	for _, seed := range []string{
		"1\n00:00:00,000 --> 00:00:02,000\nHello\n\n",
		"1\r\n00:00:01,500 --> 00:00:03,250\r\nHello\r\nworld\r\n\r\n2\r\n01:02:03,004 --> 01:02:05,000\r\nBye\r\n",
		"00:00:00.100 --> 00:00:00.900 X1:1\rA\r",
		"-->\n-->\n-->",
		"999999:99:99,999999999 --> 0:0:0",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) { checkCues(t, doc, ParseSRT(doc)) })
}

func FuzzParseVTT(f *testing.F) {
	for _, seed := range []string{
		"WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nHello\n\n",
		"WEBVTT\n\nNOTE x\n\nSTYLE\n::cue{}\n\nid\n00:01.250 --> 00:03.000 align:start\n<v A>Hi</v>\n",
		"\uFEFFWEBVTT\r\n\r\n1:00.0 --> 2:00.0\r\nx",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) { checkCues(t, doc, ParseVTT(doc)) })
}

// TestParseMemoryIsLinear feeds documents shaped to make a careless parser blow up (all line breaks,
// all cues, one endless line) and checks that what parsing allocates stays a small multiple of the
// input.
func TestParseMemoryIsLinear(t *testing.T) {
	const size = 4 << 20
	tests := map[string]string{
		"line breaks":   strings.Repeat("\r\n", size/2),
		"minimal cues":  strings.Repeat("0:0 --> 0:0\n\n", size/13),
		"one long line": strings.Repeat("a", size),
		"arrows":        strings.Repeat("-->", size/3),
	}
	for name, doc := range tests {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			cues := ParseVTT(doc)
			runtime.ReadMemStats(&after)
			if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 16*uint64(len(doc)) {
				t.Errorf("parsing %d bytes into %d cues allocated %d bytes", len(doc), len(cues), allocated)
			}
		})
	}
}

func TestSpeakers(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ text, speaker, voice string }{
		{"SPEAKER_00: hello", "SPEAKER_00", ""},
		{" [SPEAKER_12] : hi", "SPEAKER_12", ""},
		{"<v Roger Bingham>We are in", "", "Roger Bingham"},
		{"<v.loud.x  Esme >Never", "", "Esme"},
		{"SPEAKER_x: no number", "", ""},
		{"<vRoger>no space", "", ""},
		{"plain text", "", ""},
	} {
		if got := Speaker(tt.text); got != tt.speaker {
			t.Errorf("Speaker(%q) = %q, want %q", tt.text, got, tt.speaker)
		}
		if got := Voice(tt.text); got != tt.voice {
			t.Errorf("Voice(%q) = %q, want %q", tt.text, got, tt.voice)
		}
	}
}
