package infergate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A loop's usage keeps the token details any turn sent: cached and reasoning tokens add up, and a
// turn without details counts as zero for them.
func TestAddUsageKeepsDetails(t *testing.T) {
	t.Parallel()
	plain := Usage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3}
	detailed := Usage{PromptTokens: 10, CompletionTokens: 20, TotalTokens: 30,
		PromptTokensDetails:     &PromptTokensDetails{CachedTokens: 4, AudioTokens: 1},
		CompletionTokensDetails: &CompletionTokensDetails{ReasoningTokens: 5, AcceptedPredictionTokens: 2}}
	tests := []struct {
		name string
		a, b Usage
		want Usage
	}{
		{"neither has details", plain, plain, Usage{PromptTokens: 2, CompletionTokens: 4, TotalTokens: 6}},
		{"the second has", plain, detailed, Usage{PromptTokens: 11, CompletionTokens: 22, TotalTokens: 33,
			PromptTokensDetails:     &PromptTokensDetails{CachedTokens: 4, AudioTokens: 1},
			CompletionTokensDetails: &CompletionTokensDetails{ReasoningTokens: 5, AcceptedPredictionTokens: 2}}},
		{"both have", detailed, detailed, Usage{PromptTokens: 20, CompletionTokens: 40, TotalTokens: 60,
			PromptTokensDetails:     &PromptTokensDetails{CachedTokens: 8, AudioTokens: 2},
			CompletionTokensDetails: &CompletionTokensDetails{ReasoningTokens: 10, AcceptedPredictionTokens: 4}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, addUsage(tt.a, tt.b)); diff != "" {
			t.Errorf("%s: addUsage (-want +got):\n%s", tt.name, diff)
		}
	}
	if detailed.PromptTokensDetails.CachedTokens != 4 {
		t.Error("addUsage changed its argument's details")
	}
}
