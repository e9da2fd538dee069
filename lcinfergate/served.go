package lcinfergate

import (
	infergate "github.com/infergate/infergate-go"
	"github.com/tmc/langchaingo/llms"
)

// withResponseInfo is a call's options with one that fills info, in a slice of their own so that
// concurrent calls never append into one another's.
func withResponseInfo(opts []infergate.Option, info *infergate.ResponseInfo) []infergate.Option {
	return append(opts[:len(opts):len(opts)], infergate.WithResponseInfo(info))
}

// addModel puts in each choice's GenerationInfo, under "model", the model that answered: the
// completion's model.
func addModel(resp *llms.ContentResponse, model string) {
	if model == "" {
		return
	}
	for _, choice := range resp.Choices {
		if choice.GenerationInfo == nil {
			choice.GenerationInfo = make(map[string]any, 2)
		}
		choice.GenerationInfo["model"] = model
	}
}

// addFallbacks puts in each choice's GenerationInfo, under "fallbacks", the models that failed
// before the one that answered, in the order tried: a []map[string]any of {"model": string,
// "error": string}. Nothing when the first model answered.
func addFallbacks(resp *llms.ContentResponse, fallbacks []infergate.ModelAttempt) {
	if len(fallbacks) == 0 {
		return
	}
	for _, choice := range resp.Choices {
		list := make([]map[string]any, len(fallbacks))
		for i, f := range fallbacks {
			list[i] = map[string]any{"model": f.Model, "error": errorText(f.Err)}
		}
		if choice.GenerationInfo == nil {
			choice.GenerationInfo = make(map[string]any, 1)
		}
		choice.GenerationInfo["fallbacks"] = list
	}
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
