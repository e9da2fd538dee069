// Package eino runs the same streamed tool-call answers of gatewaytest's fake gateway, with the
// quirks real providers have, through einoinfergate and through eino-ext's OpenAI chat model, and
// folds each with schema.ConcatMessages: einoinfergate's must be the answer the fake sent, and
// what eino-ext's gives is recorded as observed, so that the record stays true.
//
// It holds no code, only tests. It is its own module so that neither the SDK's module nor
// einoinfergate's depends on eino-ext.
package eino
