// Package batch runs a file of OpenAI batch requests through the Inference Gateway, which has no
// batch route of its own: each line is sent as its own request, within the client's limits, and its
// result is appended to an output file in OpenAI's batch result format.
//
// # Input
//
// Each line of the input is a Request: a custom_id, unique in the file; the method POST; a url,
// "/v1/chat/completions" or "/v1/embeddings" (or their "/api/v1/..." spellings); and the body of
// that request. An embedding's "input" is a string or a list of strings; a chat's "stop" a string
// or a list. Blank lines are allowed. The fields of a body that infergate.ChatRequest and
// infergate.EmbeddingRequest do not model ("seed", "response_format", a provider's "top_k") go to
// their Extra as the JSON the line has, and a message's own extra fields to Message.Extra, so the
// gateway gets them as written; a field inside a tool's definition other than its name,
// description, parameters (sent as written) and strict is not sent. "stream": false is left out; a
// streamed request is refused.
//
// The input is read twice and never held in memory: once to check every line before anything is
// sent (an *InputError names the bad lines), once to send. What a run holds is 17 bytes per
// request of the file (its custom_id's 16-byte hash, for the duplicates and the resume, and a byte
// for what the output holds of it) and the requests in flight: about 20 MB for a million requests.
//
// # Output
//
// Each line of the output is a Result, written in completion order: the gateway's answer, whatever
// its status (Response: status_code, request_id, body), or, for a request that got no answer,
// Error. A chat answer's body is the gateway's, as it came; an embeddings answer's is written with
// its vectors as lists of numbers, OpenAI's default, or as base64 when the line asked for
// "encoding_format": "base64" (the client reads the vectors in either encoding, and asks for
// base64 on the wire when the line does not say). An error's body is the gateway's, credentials
// redacted.
//
// # Resuming
//
// A run is resumable, one run at a time for an output: a run locks its output for as long as it
// runs, and a second run on it is refused (ErrOutputInUse). Run reads the output first and sends only the requests that have no result
// there yet; a result whose custom_id the input does not have is left as it is. A last line torn by
// a crash is cut off, and its request sent again. With Job.RetryFailed the failed results of the
// run's requests are taken out of the output (written anew beside it, synced, and renamed over it)
// and their requests sent again, so that the output holds exactly one line per custom_id at any
// time. Each result is one write of a whole line; the output is synced every second and at the end,
// so a killed process loses no written result, and a machine that stops loses at most the last
// second's, whose requests the next run sends again. Every request carries an Idempotency-Key
// derived from its custom_id and body (IdempotencyKey: the body's bytes as the line has them, so
// that a line written again with other spacing or key order is a new request), so a request that was in flight when a
// process died is the same request to the gateway when a later run sends it again.
//
// A run that ends with its context lets the requests in flight finish for Job.Grace, cancels those
// still running (they get no result: the next run sends them), and returns Summary.Interrupted.
//
// # Quota
//
// Job.Concurrency bounds the requests in flight. Requests go through client.Chat.Create and
// client.Embeddings.Create, so the client's limiter (infergate.WithLimiter), fallback models and
// cooldowns, and its retries apply to each. A 429 that is still a 429 after the client's retries
// pauses the whole run until its Retry-After, and its request is sent again (see Run).
//
// # Shards
//
// Several processes split one file with Job.Shard, each writing its own output; given one shared
// limiter (redisinfergate), they keep together within the key's quota. Every custom_id is in
// exactly one shard (Shard.Contains); the input is checked whole by each process.
//
// # Costs
//
// Progress and Summary sum the usage the answers reported and what they cost
// (infergate.ResponseInfo.Cost, from the models' prices). The cost is summed in the currency of the
// first priced answer; an answer priced in another currency, like an answer with usage and no price
// (an embedding, a model whose prices are unknown), is counted in Unpriced instead.
package batch
