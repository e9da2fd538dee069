// Package batch runs a file of OpenAI batch requests through the Inference Gateway, which has no
// batch route of its own: each line is sent as its own request, within the client's limits, and its
// result is appended to an output file in OpenAI's batch result format.
//
// A run is resumable. Run reads the output first and sends only the requests that have no result
// there yet; a last line torn by a crash is rewritten; with Job.RetryFailed the failed results are
// taken out of the output and their requests sent again, so that the output holds exactly one line
// per custom_id at any time. Every request carries an Idempotency-Key derived from its custom_id
// and body (IdempotencyKey), so a request that was in flight when a process died is the same
// request to the gateway when a later run sends it again.
//
// Several processes split one file with Job.Shard; given one shared limiter (redisinfergate), they
// keep together within the key's quota.
//
// The input is read twice and never held in memory: once to check every line before anything is
// sent (an *InputError names the bad lines), once to send. Memory grows with Job.Concurrency, not
// with the file.
package batch
