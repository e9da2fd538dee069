// Package tokens counts a conversation's prompt tokens as the gateway's nodes bill them.
//
// A node that serves a chat completion counts its prompt itself, with the cl100k_base encoding of
// github.com/tiktoken-go/tokenizer, and the gateway bills that count (its usage_from_provider and
// usage_from_consumer). CountPrompt gives the same number before the request is sent:
//
//	n := tokens.CountPrompt(req.Messages)
//
// The node's count is an estimate of its own, not the model's tokenizer: every message adds 4 to
// the tokens of its text and of its name; its role, tool calls, tool call id and reasoning add
// nothing, and neither do images or any part other than text. A model whose own tokenizer differs
// from cl100k_base sees a different number, but the bill follows the node.
//
// It is a module of its own, so that infergate-go itself depends on no tokenizer: the encoding's
// vocabulary adds about 4 MB to a program that imports this package, and the first count builds it,
// which takes tens of milliseconds and keeps about 3.5 MB of heap for good. Counting is safe from
// any number of goroutines.
package tokens
