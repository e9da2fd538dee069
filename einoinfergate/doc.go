// Package einoinfergate puts the infergate-go client behind eino's component interfaces: a chat
// model for graphs, chains and agents (flow/agent/react, the ADK), and an embedder for indexers
// and retrievers.
//
//	client, err := infergate.NewClient()
//	chat, err := einoinfergate.NewChatModel(client, "llama-3.3-70b")
//	agent, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: chat, ...})
//
// It is a module of its own, so that infergate-go itself depends on no part of eino.
//
// # What maps to what
//
// ChatModel is a model.ToolCallingChatModel. Generate is Chat.Create and Stream is Chat.Stream,
// so the SDK's handling of what providers really send carries through: tool-call fragments
// without ids or indexes, placeholder "{}" arguments before the real ones, reasoning spelled
// "reasoning_content", "reasoning" or as thinking parts, error events inside a 200 stream, the
// catalogue's hex model ids, retries with one idempotency key, fallback models. The answer's
// content, reasoning (ReasoningContent), tool calls (each with its Index), finish reason and
// usage (cached and reasoning tokens included, in ResponseMeta) fill the schema.Message; an
// assistant message's ReasoningContent is sent back as reasoning_content on later turns, as
// thinking models that call tools need. Stream's messages concatenate with schema.ConcatMessages
// to what Generate returns, but for the reasoning token count, which ConcatMessages drops (the
// stream's last message has it), and for where the tool calls' fields are (below).
//
// The fields of an answer's message and tool calls that the SDK does not model
// (infergate.RawFields: Gemini's thought signatures, OpenRouter's reasoning details, which those
// providers want back on the next turn) travel in eino's Extra maps as the text of a JSON object,
// which any copy of the message keeps to the byte: under ExtraFields in schema.Message.Extra and
// schema.ToolCall.Extra. ConcatMessages keeps a streamed tool call's Extra from its first
// fragment only, so Stream's last message carries the calls' fields under ExtraToolCallFields in
// its own Extra, which ConcatMessages keeps. An assistant message in the conversation sends them
// back as they came.
//
// eino's common options apply per call: model.WithTemperature, WithTopP, WithMaxTokens,
// WithModel, WithStop, WithTools (replacing the tools of WithTools for the call) and
// WithToolChoice (forbidden is "none", allowed "auto", forced "required", or the one function
// when exactly one allowed name is given; allowed names limit the tools sent). WithTools returns
// a new model and never changes the one it is called on, as eino requires.
//
// Messages carry text and images (a URL, or inline data with its MIME type) in Content,
// UserInputMultiContent or the older MultiContent; audio, video and file parts are refused with
// a *infergate.ValidationError before anything is sent.
//
// Embedder is an embedding.Embedder over Embeddings.Create, which sends more texts than one
// request may carry in several; embedding.WithModel overrides its model for a call.
//
// # Retries and errors
//
// The client's retries apply by default. When eino retries a model itself (the ADK's
// ModelRetryConfig, say), give the model WithoutRetries so that a failure is not retried twice
// over; WithCallOptions passes any other infergate call option (a timeout, a header,
// infergate.WithFallbackModels) to every call. Errors are the SDK's, unwrapped: errors.As finds
// an *infergate.APIError or *infergate.ValidationError in what Generate and Stream return, and
// an *infergate.StreamError in the error a Stream reader's Recv returns when the answer breaks
// off. An answer without any choice, which the SDK reads as an empty message, is an error here
// (from Generate, as in eino-ext's model, or the reader's last Recv): an agent would otherwise
// take the empty message for the model's last word.
//
// # Which model answered
//
// Every answer's Extra says which model served it, under keys that stay as they are:
//
//   - "model", a string: the model the answer names (the provider's, which may differ from the
//     one asked for, as a fallback's does).
//   - "fallbacks", a []map[string]any, present only when models failed before the one that
//     answered (infergate.WithFallbackModels): one map a model, in the order tried, with "model"
//     (a string, "" for the gateway's choice) and "error" (a string, that model's error).
//
// Generate's message has them, and a Stream's last message, so that the message
// schema.ConcatMessages folds has them once. Their values are plain strings, maps and slices, so
// that JSON carries them. A WithResponseInfo passed with WithCallOptions is filled as well.
//
//	msg, err := chat.Generate(ctx, input)
//	fmt.Println(msg.Extra["model"]) // a fallback's name when the model asked for was down
//	fallbacks, _ := msg.Extra["fallbacks"].([]map[string]any)
//	for _, f := range fallbacks {
//		fmt.Println(f["model"], "failed:", f["error"])
//	}
//
// # The react agent and text before a tool call
//
// eino's react agent, streaming, decides whether the model called a tool with its
// StreamToolCallChecker, which by default looks at the first message with content only. A model
// that writes a sentence before its call (Claude does, and others when told to explain
// themselves) has that sentence returned as the agent's answer, and the tool never runs. Give the
// agent StreamToolCallChecker, which finds a call anywhere in the answer:
//
//	agent, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: chat,
//		ToolsConfig: tools, StreamToolCallChecker: einoinfergate.StreamToolCallChecker})
//
// The agent's Generate is not affected: the checker sees the whole answer as one message, calls
// included.
//
// # Callbacks
//
// Both components fire eino's callbacks themselves (IsCallbacksEnabled is true, GetType is
// "Infergate"): OnStart with a model.CallbackInput (messages, tools, tool choice, config), then
// OnEnd with a model.CallbackOutput holding the message and its TokenUsage for Generate, or
// OnEndWithStreamOutput for Stream, whose last output carries the TokenUsage; OnError for a call
// that fails before it answers. The embedder reports embedding.CallbackInput and CallbackOutput,
// with the prompt's token count.
package einoinfergate
