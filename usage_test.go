package infergate_test

import (
	"context"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

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
