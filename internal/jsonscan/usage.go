package jsonscan

// Usage is a token count object as DecodeUsage reads it.
type Usage struct{ Prompt, Completion, Total int64 }

// DecodeUsage reads the usual usage object: prompt_tokens, completion_tokens and total_tokens, each
// an integer of at most nine digits (an int on every platform) or null. It declines anything else
// (a breakdown such as completion_tokens_details, another key, a duplicate, invalid JSON), which the
// caller then decodes with encoding/json.
func DecodeUsage(b []byte) (Usage, bool) {
	var u Usage
	s := scanner{b: b}
	var seen uint16
	ok := s.object(func(key []byte) bool {
		switch string(key) {
		case "prompt_tokens":
			return once(&seen, 0) && s.optInteger(&u.Prompt, 9)
		case "completion_tokens":
			return once(&seen, 1) && s.optInteger(&u.Completion, 9)
		case "total_tokens":
			return once(&seen, 2) && s.optInteger(&u.Total, 9)
		}
		return false
	})
	s.ws()
	return u, ok && s.end()
}
