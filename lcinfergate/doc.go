// Package lcinfergate makes an infergate client a langchaingo model: New wraps a *infergate.Client
// as an llms.Model (and an llms.ReasoningModel), and the same LLM is an embeddings.EmbedderClient.
//
//	llm := lcinfergate.New(client, "llama-3.3-70b")
//	resp, err := llm.GenerateContent(ctx, []llms.MessageContent{
//		llms.TextParts(llms.ChatMessageTypeHuman, "Hello!"),
//	})
//
// Every call goes through the SDK's Chat.Create, Chat.Stream and GenerateObject, so what the SDK
// does for the gateway's quirks holds here too: placeholder "{}" arguments, tool-call fragments
// without ids or indexes, reasoning in any of its spellings, errors sent inside a 200 stream,
// models named by their catalogue hex id, retries under one idempotency key, fallback models.
//
// # What maps to what
//
// Messages: a system message is the SDK's system message (text only); a human or generic message
// is a user message, its text, llms.ImageURLContent and image llms.BinaryContent parts becoming
// text and image parts; an AI message is an assistant message with its text and llms.ToolCall
// parts; each llms.ToolCallResponse of a tool (or function) message is a tool result.
//
// Call options: llms.WithModel overrides the model given to New; temperature, top p, max tokens,
// stop words, n (or candidate count), frequency and presence penalties map to the request's fields
// (a zero reads as unset, as langchaingo's OpenAI adapter reads it); seed and top k are sent as
// "seed" and "top_k"; llms.WithThinkingMode low, medium or high as "reasoning_effort". Tools and
// functions are sent as function tools; llms.WithToolChoice takes "none", "auto", "required" (or
// "any"), a function's name, or an llms.ToolChoice, and without it llms.WithFunctionCallBehavior
// is the choice. Metadata and the options of other providers are not sent.
//
// Answers: each choice's text, finish reason and tool calls (and FuncCall, the first of them), its
// reasoning in ContentChoice.ReasoningContent, and usage in GenerationInfo under the keys of
// langchaingo's OpenAI adapter (PromptTokens, CompletionTokens, TotalTokens, ReasoningTokens,
// ThinkingTokens, ThinkingContent, PromptCachedTokens and the rest). When the provider reports no
// usage, the gateway's own estimate fills it.
//
// # Which model answered
//
// Each choice's GenerationInfo also says which model served the call, under keys that stay as
// they are, whether the answer was streamed, whole or in JSON mode:
//
//   - "model", a string: the model the answer names (the provider's, which may differ from the
//     one asked for, as a fallback's does).
//   - "fallbacks", a []map[string]any, present only when models failed before the one that
//     answered (infergate.WithFallbackModels): one map a model, in the order tried, with "model"
//     (a string, "" for the gateway's choice) and "error" (a string, that model's error). In JSON
//     mode, these are the last turn's.
//
// A WithResponseInfo passed with WithCallOptions is filled as well.
//
//	info := resp.Choices[0].GenerationInfo
//	fmt.Println(info["model"]) // a fallback's name when the model asked for was down
//	fallbacks, _ := info["fallbacks"].([]map[string]any)
//	for _, f := range fallbacks {
//		fmt.Println(f["model"], "failed:", f["error"])
//	}
//
// Streaming: with llms.WithStreamingFunc (or StreamingReasoningFunc) the answer is streamed;
// the first choice's content goes to StreamingFunc and its reasoning and content to
// StreamingReasoningFunc as they arrive, and the response holds the choices the SDK reassembled.
// Tool calls reach the streaming functions as nothing (langchaingo's OpenAI adapter writes their
// raw fragments there as JSON): they are in the response, whole and cleaned. An error a streaming
// function returns ends the stream and is the call's error.
//
// Reasoning on tool turns, and vendor fields: thinking models want their reasoning back with the
// tool calls it led to, and some providers want back the fields of an answer that the SDK does not
// model (infergate.RawFields: Gemini's thought signature on each tool call, OpenRouter's
// reasoning details on the message). llms.MessageContent has no place for either, nor has
// llms.ToolCall. The LLM therefore remembers them for its recent answers (the last 1024, and no more
// than 8 MiB in all: the oldest go first, and an answer larger than that is not kept; the reasoning
// of those that called tools, the fields of any; copies, so that the answers' text is not kept),
// keyed by the messages the answer followed and by its calls (by its text, when it has none), and when an AI message sent back
// after the same messages holds the same calls (same ids, names and arguments, as callers copy them
// from the ContentChoice) or the same text, the assistant message carries them again. The messages
// are part of the key so that conversations sharing an LLM never receive one another's, even when
// their calls look alike; a history trimmed or rewritten before the AI message sends it without.
// GenerationInfo shows the fields as JSON text: "ExtraFields" the message's object,
// "ToolCallExtraFields" a list of the calls' objects in their order.
//
// # JSON mode
//
// The gateway drops response_format, so llms.WithJSONMode is done as the SDK's GenerateObject does
// it in ObjectModePrompt: a system message asks for a single JSON object, the object is found in
// the answer's text (past thinking and prose), and an answer without one is sent back to be
// repaired, up to 3 model turns. The choice's Content is the object's JSON alone, and its usage the
// sum of the turns. JSON mode gives one choice, and refuses tools: its answer is an object, not a
// call. A streaming function receives the object once it is complete, in one piece.
//
// # Retries and call options
//
// The client's options apply, retries included. Frameworks that retry on their own can turn the
// SDK's retries off with WithoutRetries; WithCallOptions passes any infergate option to every call
// (a timeout, a header, infergate.WithFallbackModels).
//
// # Errors
//
// Errors keep their types: errors.As finds the SDK's *infergate.APIError, *infergate.StreamError,
// *infergate.ValidationError and the others through the error a call returns. What the adapter
// cannot send (a part a role cannot hold, a tool that is not a function, a tool choice of an unknown
// form, tools in JSON mode, a nil client) is refused before anything is sent, with a
// *infergate.ValidationError too.
package lcinfergate
