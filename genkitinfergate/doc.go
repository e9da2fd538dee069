// Package genkitinfergate is a firebase genkit plugin whose models and embedders are the
// gateway's, answered through an infergate.Client.
//
//	client, err := infergate.NewClient()
//	g := genkit.Init(ctx, genkit.WithPlugins(genkitinfergate.New(client)))
//	resp, err := genkit.Generate(ctx, g, ai.WithModelName("infergate/llama-3.3-70b"), ai.WithPrompt("Hi"))
//
// It is a module of its own, so that infergate-go itself depends on no part of genkit.
//
// # Models
//
// The plugin is dynamic: every catalogue model is "infergate/<model id>" (a name such as
// "llama-3.3-70b" or the catalogue's hex id), resolved when first named; ListActions lists the
// catalogue (Models.List) for genkit's developer UI, text models as models and embedding models as
// embedders. DefineModel registers a model with a description of its own.
//
// A model's call is Chat.Create, or Chat.Stream when genkit streams, so the SDK's handling of what
// providers really send carries through: tool-call fragments without ids or indexes, placeholder
// "{}" arguments before the real ones, reasoning spelled "reasoning_content", "reasoning" or as
// thinking parts, error events inside a 200 stream, retries with one idempotency key, fallback
// models. A stream's chunks carry reasoning and text as they come, and the tool requests whole in
// a last chunk. Reasoning travels as reasoning parts only: Text, of a chunk or of the answer, is
// never the reasoning, not even when the model answered with reasoning alone (a lone reasoning
// part gets an empty reasoning part after it, since genkit's Text is a lone part's text whatever
// its kind). The answer has reasoning, text and tool request parts, the finish reason and the
// usage (cached and reasoning tokens included); genkit runs the tools and sends their responses
// back, and the reasoning parts of the model's messages go back as reasoning_content, as thinking
// models that call tools need. The fields of the answer's message and tool calls that the SDK
// does not model (infergate.RawFields: Gemini's thought signatures, OpenRouter's reasoning
// details), which those providers want back, travel as the text of a JSON object under
// MetadataFields in the Metadata of the model's message and of each tool request part, and go
// back with the message.
//
// Messages carry text, data and images (a media part with an https or data URL); other media,
// and parts of kinds the chat API has no place for, are refused with a *infergate.ValidationError
// before anything is sent. Reasoning parts are sent with the model's messages only: the chat API
// has no place for them in a user's. Typed output (genkit.GenerateData) is asked for in the prompt,
// as genkit does for models without constrained decoding, and read out of the answer's text. The config is an *ai.GenerationCommonConfig (or the same as a JSON
// object): MaxOutputTokens, Temperature, TopP, TopK (sent as top_k) and StopSequences map onto
// the request; zero means unset, as GenerationCommonConfig cannot say otherwise.
//
// # Which model answered
//
// The response's message (ModelResponse.Message, and each model turn of its History) says in its
// Metadata which model served it, under keys that stay as they are, streamed or not:
//
//   - "model", a string: the model the answer names (the provider's, which may differ from the
//     one asked for, as a fallback's does).
//   - "fallbacks", a []map[string]any, present only when models failed before the one that
//     answered (infergate.WithFallbackModels): one map a model, in the order tried, with "model"
//     (a string, "" for the gateway's choice) and "error" (a string, that model's error).
//
// A WithResponseInfo passed with WithCallOptions is filled as well.
//
//	resp, err := genkit.Generate(ctx, g, ai.WithModelName("infergate/llama-3.3-70b"), ai.WithPrompt("Hi"))
//	fmt.Println(resp.Message.Metadata["model"]) // a fallback's name when llama-3.3-70b was down
//	fallbacks, _ := resp.Message.Metadata["fallbacks"].([]map[string]any)
//	for _, f := range fallbacks {
//		fmt.Println(f["model"], "failed:", f["error"])
//	}
//
// # Retries and errors
//
// The client's retries apply by default. When the application retries itself, give the plugin
// WithoutRetries so that a failure is not retried twice over; WithCallOptions passes any other
// infergate call option (a timeout, a header, infergate.WithFallbackModels) to every call. Errors
// are the SDK's, unwrapped: errors.As finds an *infergate.APIError, *infergate.StreamError or
// *infergate.ValidationError in what genkit.Generate returns. An answer without any choice is an
// error: genkit would otherwise take the empty message for the model's last word.
package genkitinfergate
