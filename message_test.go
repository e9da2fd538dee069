package infergate_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

var imageHeads = map[string][]byte{
	"image/jpeg": []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"),
	"image/png":  []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
	"image/gif":  []byte("GIF89a\x01\x00\x01\x00"),
	"image/webp": []byte("RIFF\x24\x00\x00\x00WEBPVP8 "),
}

func TestImageBytesPart(t *testing.T) {
	t.Parallel()
	for mime, data := range imageHeads {
		t.Run(mime, func(t *testing.T) {
			part, err := infergate.ImageBytesPart(data)
			if err != nil {
				t.Fatal(err)
			}
			want := "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
			if part.Type != "image_url" || part.ImageURL.URL != want {
				t.Errorf("part = %+v, want URL %s", part, want)
			}
		})
	}
	for name, data := range map[string][]byte{"pdf": []byte("%PDF-1.4\n"), "bmp": []byte("BM\x00\x00"), "empty": nil, "text": []byte("hello")} {
		t.Run("refuses "+name, func(t *testing.T) {
			var verr *infergate.ValidationError
			if _, err := infergate.ImageBytesPart(data); !errors.As(err, &verr) {
				t.Errorf("err = %v, want a ValidationError", err)
			}
		})
	}
}

func TestImageFilePart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	part, err := infergate.ImageFilePart(write("cat.png", imageHeads["image/png"]))
	if err != nil || !strings.HasPrefix(part.ImageURL.URL, "data:image/png;base64,") {
		t.Fatalf("png: %v, %+v", err, part)
	}
	var verr *infergate.ValidationError
	if _, err := infergate.ImageFilePart(write("cat.jpg", imageHeads["image/png"])); !errors.As(err, &verr) || !strings.Contains(verr.Reason, "extension") {
		t.Errorf("mismatched extension: err = %v", err)
	}
	if _, err := infergate.ImageFilePart(write("doc.png", []byte("%PDF-1.4"))); !errors.As(err, &verr) {
		t.Errorf("unsupported content: err = %v", err)
	}
	if _, err := infergate.ImageFilePart(filepath.Join(dir, "missing.png")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestSeveralImagesValidate(t *testing.T) {
	t.Parallel()
	png, _ := infergate.ImageBytesPart(imageHeads["image/png"])
	gif, _ := infergate.ImageBytesPart(imageHeads["image/gif"])
	req := infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessageParts(
		infergate.TextPart("compare"), png, gif, infergate.ImageURLPart("https://example.com/x.webp"))}}
	if err := req.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := req.Messages[0].Text(); got != "compare" {
		t.Errorf("Text() = %q", got)
	}
}

// Parts replace Content on the wire: a message holding both must not lose Content silently, while
// an answer's message, whose Content is its parts' text, goes back as it came.
func TestContentAndPartsMustAgree(t *testing.T) {
	t.Parallel()
	request := func(m infergate.Message) error {
		req := infergate.ChatRequest{Model: "m", Messages: []infergate.Message{m}}
		return req.Validate()
	}
	both := infergate.UserMessageParts(infergate.TextPart("what is "), infergate.ImageURLPart("https://example.com/cat.png"))
	both.Content = "describe the cat"
	var invalid *infergate.ValidationError
	if err := request(both); !errors.As(err, &invalid) || invalid.Field != "Messages[0].Content" {
		t.Errorf("Content %q beside parts %q: err = %v, want a *ValidationError on Messages[0].Content", both.Content, both.Text(), err)
	}

	var answer infergate.Message
	raw := `{"role":"assistant","content":[{"type":"text","text":"a cat "},{"type":"image_url","image_url":{"url":"https://example.com/c.png"}},{"type":"text","text":"on a mat"}]}`
	if err := json.Unmarshal([]byte(raw), &answer); err != nil {
		t.Fatal(err)
	}
	if answer.Content == "" || answer.Parts == nil {
		t.Fatalf("the answer has Content %q and %d parts; the test needs both", answer.Content, len(answer.Parts))
	}
	if err := request(answer); err != nil {
		t.Errorf("an answer's message sent back: %v", err)
	}
	for _, m := range []infergate.Message{
		infergate.UserMessage("just text"),
		infergate.UserMessageParts(infergate.TextPart("just parts")),
		{Role: infergate.RoleUser, Content: "just parts", Parts: []infergate.ContentPart{infergate.TextPart("just parts")}},
	} {
		if err := request(m); err != nil {
			t.Errorf("%+v: %v", m, err)
		}
	}
}

// A tool loop's token budget holds whatever counts a server sends: a total so large that the sum
// would wrap stops the loop at that turn, and a negative count is no tokens rather than tokens
// given back.
func TestRunToolsTokenBudgetOddCounts(t *testing.T) {
	t.Parallel()
	call := []gatewaytest.ToolCall{{Name: "weather", Arguments: `{"city":"Rome"}`}}
	for _, tc := range []struct {
		name       string
		second     gatewaytest.Usage
		wantStep   int
		wantPrompt int
		wantTotal  int
	}{
		{"a total that would wrap", gatewaytest.Usage{PromptTokens: math.MaxInt, TotalTokens: math.MaxInt}, 2, math.MaxInt, math.MaxInt},
		{"a negative input", gatewaytest.Usage{PromptTokens: -1000}, 3, 80, 110},
		{"negative counts all", gatewaytest.Usage{PromptTokens: math.MinInt, CompletionTokens: -5, TotalTokens: math.MinInt}, 3, 80, 110},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gw := gatewaytest.New(t)
			second := tc.second
			gw.Enqueue(
				gatewaytest.Reply{ToolCalls: call, Usage: &gatewaytest.Usage{PromptTokens: 50, CompletionTokens: 10, TotalTokens: 60}},
				gatewaytest.Reply{ToolCalls: call, Usage: &second})
			for range 4 {
				gw.Enqueue(gatewaytest.Reply{ToolCalls: call, Usage: &gatewaytest.Usage{PromptTokens: 30, CompletionTokens: 20, TotalTokens: 50}})
			}
			_, err := gw.Client().Chat.RunTools(context.Background(), hello(),
				infergate.ToolLoop{Tools: []*infergate.FuncTool{weatherTool(t)}, MaxTokens: 100, MaxSteps: 6}).Wait()
			var limit *infergate.ToolLimitError
			if !errors.As(err, &limit) || limit.Limit != infergate.ToolLimitTokens || limit.Step != tc.wantStep {
				t.Fatalf("err = %v; want the token budget spent at turn %d", err, tc.wantStep)
			}
			if u := limit.Usage; u.PromptTokens != tc.wantPrompt || u.TotalTokens != tc.wantTotal || u.CompletionTokens < 0 {
				t.Errorf("usage %+v; want %d in, %d in all, nothing negative", u, tc.wantPrompt, tc.wantTotal)
			}
		})
	}
}

// An object's usage sums its attempts the same way: a repair after an answer whose count would wrap
// the sum keeps it at the largest int.
func TestGenerateObjectUsageSaturates(t *testing.T) {
	t.Parallel()
	gw := gatewaytest.New(t, gatewaytest.WithReplies(
		gatewaytest.Reply{Content: "no JSON here", Usage: &gatewaytest.Usage{PromptTokens: 5, CompletionTokens: math.MaxInt, TotalTokens: math.MaxInt}},
		gatewaytest.Reply{Object: pancakes, Usage: &gatewaytest.Usage{PromptTokens: -7, CompletionTokens: 10, TotalTokens: 10}}))
	obj, err := infergate.GenerateObject[Recipe](context.Background(), gw.Client().Chat, recipeRequest(), infergate.ObjectSpec{})
	if err != nil {
		t.Fatal(err)
	}
	want := infergate.Usage{PromptTokens: 5, CompletionTokens: math.MaxInt, TotalTokens: math.MaxInt}
	if obj.Attempts != 2 || obj.Usage != want {
		t.Errorf("%d attempts, usage %+v; want 2 and %+v", obj.Attempts, obj.Usage, want)
	}
}

// A loop's usage keeps the token details any turn sent: cached and reasoning tokens add up, and a
// turn without details counts as zero for them.
func TestUsageAddKeepsDetails(t *testing.T) {
	t.Parallel()
	plain := infergate.Usage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3}
	detailed := infergate.Usage{PromptTokens: 10, CompletionTokens: 20, TotalTokens: 30,
		PromptTokensDetails:     &infergate.PromptTokensDetails{CachedTokens: 4, AudioTokens: 1},
		CompletionTokensDetails: &infergate.CompletionTokensDetails{ReasoningTokens: 5, AcceptedPredictionTokens: 2}}
	tests := []struct {
		name string
		a, b infergate.Usage
		want infergate.Usage
	}{
		{"neither has details", plain, plain, infergate.Usage{PromptTokens: 2, CompletionTokens: 4, TotalTokens: 6}},
		{"the second has", plain, detailed, infergate.Usage{PromptTokens: 11, CompletionTokens: 22, TotalTokens: 33,
			PromptTokensDetails:     &infergate.PromptTokensDetails{CachedTokens: 4, AudioTokens: 1},
			CompletionTokensDetails: &infergate.CompletionTokensDetails{ReasoningTokens: 5, AcceptedPredictionTokens: 2}}},
		{"both have", detailed, detailed, infergate.Usage{PromptTokens: 20, CompletionTokens: 40, TotalTokens: 60,
			PromptTokensDetails:     &infergate.PromptTokensDetails{CachedTokens: 8, AudioTokens: 2},
			CompletionTokensDetails: &infergate.CompletionTokensDetails{ReasoningTokens: 10, AcceptedPredictionTokens: 4}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.a.Add(tt.b)); diff != "" {
			t.Errorf("%s: Add (-want +got):\n%s", tt.name, diff)
		}
	}
	if detailed.PromptTokensDetails.CachedTokens != 4 {
		t.Error("Add changed its argument's details")
	}
}

// Usage.Add, on random counts near zero and near the ends of int: each field is the sum of its
// two counts, each negative one read as 0, capped at math.MaxInt; details are summed the same way
// and present when either side has them.
func TestUsageAddProperty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(6, 41))
	count := func() int {
		switch rng.IntN(4) {
		case 0:
			return rng.IntN(200) - 100
		case 1:
			return math.MaxInt - rng.IntN(100)
		case 2:
			return math.MinInt + rng.IntN(100)
		}
		return int(rng.Uint64())
	}
	usage := func() infergate.Usage {
		u := infergate.Usage{PromptTokens: count(), CompletionTokens: count(), TotalTokens: count()}
		if rng.IntN(2) == 0 {
			u.PromptTokensDetails = &infergate.PromptTokensDetails{CachedTokens: count(), AudioTokens: count()}
		}
		if rng.IntN(2) == 0 {
			u.CompletionTokensDetails = &infergate.CompletionTokensDetails{ReasoningTokens: count(), AudioTokens: count(),
				AcceptedPredictionTokens: count(), RejectedPredictionTokens: count()}
		}
		return u
	}
	sum := func(a, b int) int {
		s := new(big.Int).Add(big.NewInt(int64(max(a, 0))), big.NewInt(int64(max(b, 0))))
		if s.Cmp(big.NewInt(math.MaxInt)) > 0 {
			return math.MaxInt
		}
		return int(s.Int64())
	}
	for range 5000 {
		a, b := usage(), usage()
		got := a.Add(b)
		want := infergate.Usage{PromptTokens: sum(a.PromptTokens, b.PromptTokens),
			CompletionTokens: sum(a.CompletionTokens, b.CompletionTokens), TotalTokens: sum(a.TotalTokens, b.TotalTokens)}
		if a.PromptTokensDetails != nil || b.PromptTokensDetails != nil {
			x, y := a.PromptTokensDetails, b.PromptTokensDetails
			if x == nil {
				x = &infergate.PromptTokensDetails{}
			}
			if y == nil {
				y = &infergate.PromptTokensDetails{}
			}
			want.PromptTokensDetails = &infergate.PromptTokensDetails{CachedTokens: sum(x.CachedTokens, y.CachedTokens),
				AudioTokens: sum(x.AudioTokens, y.AudioTokens)}
		}
		if a.CompletionTokensDetails != nil || b.CompletionTokensDetails != nil {
			x, y := a.CompletionTokensDetails, b.CompletionTokensDetails
			if x == nil {
				x = &infergate.CompletionTokensDetails{}
			}
			if y == nil {
				y = &infergate.CompletionTokensDetails{}
			}
			want.CompletionTokensDetails = &infergate.CompletionTokensDetails{ReasoningTokens: sum(x.ReasoningTokens, y.ReasoningTokens),
				AudioTokens:              sum(x.AudioTokens, y.AudioTokens),
				AcceptedPredictionTokens: sum(x.AcceptedPredictionTokens, y.AcceptedPredictionTokens),
				RejectedPredictionTokens: sum(x.RejectedPredictionTokens, y.RejectedPredictionTokens)}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%+v.Add(%+v) (-want +got):\n%s", a, b, diff)
		}
	}
}
