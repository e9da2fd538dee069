package infergate

import "math"

// Add returns the sum of two token counts, field by field, with the details when either has them.
// A negative count is read as 0 and a sum past math.MaxInt stays there, so that no count a server
// sends can wrap a total or give tokens back. ToolRunResult, ToolLimitError, Object and ObjectError
// sum their turns with it.
func (u Usage) Add(v Usage) Usage {
	sum := Usage{PromptTokens: addCount(u.PromptTokens, v.PromptTokens),
		CompletionTokens: addCount(u.CompletionTokens, v.CompletionTokens),
		TotalTokens:      addCount(u.TotalTokens, v.TotalTokens)}
	if u.PromptTokensDetails != nil || v.PromptTokensDetails != nil {
		x, y := orZero(u.PromptTokensDetails), orZero(v.PromptTokensDetails)
		sum.PromptTokensDetails = &PromptTokensDetails{CachedTokens: addCount(x.CachedTokens, y.CachedTokens),
			AudioTokens: addCount(x.AudioTokens, y.AudioTokens)}
	}
	if u.CompletionTokensDetails != nil || v.CompletionTokensDetails != nil {
		x, y := orZero(u.CompletionTokensDetails), orZero(v.CompletionTokensDetails)
		sum.CompletionTokensDetails = &CompletionTokensDetails{ReasoningTokens: addCount(x.ReasoningTokens, y.ReasoningTokens),
			AudioTokens:              addCount(x.AudioTokens, y.AudioTokens),
			AcceptedPredictionTokens: addCount(x.AcceptedPredictionTokens, y.AcceptedPredictionTokens),
			RejectedPredictionTokens: addCount(x.RejectedPredictionTokens, y.RejectedPredictionTokens)}
	}
	return sum
}

// addCount is the one sum of token counts: a negative count is read as 0, and the sum saturates at
// math.MaxInt.
func addCount(a, b int) int {
	a, b = max(a, 0), max(b, 0)
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// usageTokens is what a turn's usage counts against ToolLoop.MaxTokens: its total, or its input
// plus output where the total is absent.
func usageTokens(u Usage) int {
	if u.TotalTokens > 0 {
		return u.TotalTokens
	}
	return addCount(u.PromptTokens, u.CompletionTokens)
}

// orZero is *p, or the zero value for nil.
func orZero[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
