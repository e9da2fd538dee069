// Package benchmarks compares infergate with the general OpenAI clients, github.com/openai/openai-go
// and github.com/sashabaranov/go-openai, on the same workloads: stream decoding, tool-call
// reassembly, plain responses, a large upload, time to the first delta and program size. Every
// client reads the same pre-built bytes from an in-memory http.RoundTripper (a loopback server
// for the timing of the first delta), and a hand-written net/http + encoding/json loop sets the
// floor.
//
// The package holds only tests and benchmarks; run.sh runs them all and prints one markdown table.
// Its tests (go test ./...) check, quickly, that every client decodes every workload correctly.
package benchmarks
