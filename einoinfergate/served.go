package einoinfergate

import (
	"github.com/cloudwego/eino/schema"

	infergate "github.com/infergate/infergate-go"
)

// withResponseInfo is a call's options with one that fills info, in a slice of their own so that
// concurrent calls never append into one another's.
func withResponseInfo(opts []infergate.Option, info *infergate.ResponseInfo) []infergate.Option {
	return append(opts[:len(opts):len(opts)], infergate.WithResponseInfo(info))
}

// addServed puts in msg's Extra the model that answered (the completion's model, under "model")
// and, when others failed before it, each of those with its error (under "fallbacks", a
// []map[string]any of {"model": string, "error": string}). The values are plain strings, maps and
// slices, so that JSON carries them.
func addServed(msg *schema.Message, model string, fallbacks []infergate.ModelAttempt) {
	if model == "" && len(fallbacks) == 0 {
		return
	}
	if msg.Extra == nil {
		msg.Extra = make(map[string]any, 2)
	}
	if model != "" {
		msg.Extra["model"] = model
	}
	if len(fallbacks) > 0 {
		list := make([]map[string]any, len(fallbacks))
		for i, f := range fallbacks {
			list[i] = map[string]any{"model": f.Model, "error": errorText(f.Err)}
		}
		msg.Extra["fallbacks"] = list
	}
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
