// Package otelinfergate records the calls of an infergate-go client as OpenTelemetry traces and
// metrics, following the GenAI semantic conventions (development version, as of semconv v1.41.0):
//
//	client, err := infergate.NewClient(otelinfergate.Instrument())
//
// It is a module of its own, so that infergate-go itself depends on no part of OpenTelemetry. It
// is built on infergate.Observer, which sees whole operations: a stream's span lasts until the
// stream ends (read to its end, failed, closed, or its context ended), and carries the answer's
// usage, finish reasons and time to the first chunk.
//
// A tool loop with a retried model turn and a failing tool is one trace:
//
//	invoke_agent                  INTERNAL  gen_ai.operation.name=invoke_agent, usage summed over the turns
//	├── chat gpt-4o-mini          CLIENT    gen_ai.request.stream=true, gen_ai.response.finish_reasons=[tool_calls]
//	│   ├── POST                  CLIENT    http.response.status_code=429, error.type=429
//	│   └── POST                  CLIENT    http.response.status_code=200, http.request.resend_count=1
//	├── execute_tool get_weather  INTERNAL  gen_ai.tool.name=get_weather, gen_ai.tool.call.id=call_1
//	├── execute_tool get_time     INTERNAL  error.type=tool_run, status Error
//	└── chat gpt-4o-mini          CLIENT    gen_ai.response.finish_reasons=[stop]
//	    └── POST                  CLIENT    http.response.status_code=200
//
// Spans of chat completions, embeddings, transcriptions and speech carry gen_ai.operation.name
// (chat, embeddings, and generate_content with gen_ai.output.type text or speech),
// gen_ai.provider.name ("infergate"), gen_ai.request.model, the request's sampling parameters when
// set, gen_ai.response.id, gen_ai.response.model, gen_ai.response.finish_reasons, gen_ai.usage.*
// (cached and reasoning tokens when the answer reports them), gen_ai.response.time_to_first_chunk
// for streams, server.address, server.port and infergate.request.id (the gateway's X-Request-Id).
// A failure sets error.type (the HTTP status, the *StreamError's type, tool_<stage> for a
// *ToolError, tool_step_limit, tool_call_limit or tool_token_limit for a *ToolLimitError,
// canceled, timeout, incomplete_stream, validation, or _OTHER) and an error status.
//
// Each HTTP attempt, retries included, is a CLIENT span named after its method, without
// gen_ai.operation.name; its context is written into the request's headers by the propagator.
// The routes that are not GenAI operations (the model catalogue, billing, sessions, chat history,
// API keys, health) are CLIENT spans named after the operation, such as "models.list", with
// their attempts below them and no GenAI attributes.
//
// The metrics are gen_ai.client.operation.duration (s), gen_ai.client.token.usage ({token}, by
// gen_ai.token.type) and, for streams, gen_ai.client.operation.time_to_first_chunk, for the GenAI
// routes: tool loops and tool calls are spans only, so that no token is counted twice. Their names,
// units, attributes and bucket boundaries are the conventions' (below). Nothing is done for each
// chunk of a stream beyond counting it, so instrumenting a stream costs a few percent of reading it. gen_ai.client.operation.time_per_output_chunk, which times every chunk, is
// recorded with WithChunkTiming(true): one histogram record per chunk costs about as much as
// decoding the chunk.
//
// The histograms have the bucket boundaries the conventions advise, given as the instruments'
// advice (a view the application registers overrides them): gen_ai.client.operation.duration
// 0.01 s to 81.92 s, doubling; gen_ai.client.token.usage 1 to 67108864 tokens, by fours. The
// conventions give none for the client's chunk timings, so time_to_first_chunk has those of
// gen_ai.server.time_to_first_token (0.001 s to 10 s) and time_per_output_chunk those of
// gen_ai.server.time_per_output_token (0.01 s to 2.5 s), the same measures seen from the server.
// Without them the SDK's default buckets (0, 5, 10, ... 10000) would put every call under 5 s in
// one bucket.
//
// What was said (gen_ai.input.messages, gen_ai.output.messages, tool call arguments and results)
// is recorded only with WithContentCapture(true). Credentials are never recorded.
package otelinfergate
