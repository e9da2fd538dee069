// Package quota holds the gateway's rate-limit arithmetic, shared by the SDK's limiters and by
// gatewaytest's enforcement of the same limits: the admission estimate of a request's input tokens,
// exactly as the gateway computes it, and the fixed windows it counts requests and tokens in. Its
// Limiter is the in-process limiter behind infergate.NewLimiter and WithMaxConcurrency: per key and
// group, requests and tokens counted in those windows and calls in flight; a call that finds no
// room waits for it, bounded by its context, rather than failing.
//
// The gateway estimates a chat request as max(c/4, 1), where c sums, over the messages, the length
// in code points of Python's str() of each message's content after the request is validated: a
// string counts its characters, a missing or null content 0, and an array of parts the repr() of
// the list of parts as dicts (quotes, separators, escapes and all). An embeddings request counts
// its input, or the list's items joined by one space. Nothing else of the request (tools, names,
// tool calls) counts.
//
// Windows are fixed and aligned on the Unix epoch: a window of length w holding the instant t
// starts at t/w*w and resets w later; a refused request is told to retry after the whole seconds
// left until the reset, from 1 to w.
package quota
