package batch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/infergate/infergate-go/batch"
	"github.com/infergate/infergate-go/gatewaytest"
)

// A file of three requests is run through the fake gateway; a second run finds every result in
// the output and sends nothing.
func ExampleRun() {
	gateway := gatewaytest.NewServer()
	defer gateway.Close()
	client := gateway.Client()

	dir, _ := os.MkdirTemp("", "batch")
	defer os.RemoveAll(dir)
	input, output := filepath.Join(dir, "requests.jsonl"), filepath.Join(dir, "results.jsonl")
	os.WriteFile(input, []byte(
		`{"custom_id":"q1","method":"POST","url":"/v1/chat/completions","body":{"model":"llama-3.3-70b","messages":[{"role":"user","content":"Capital of France?"}]}}
{"custom_id":"q2","method":"POST","url":"/v1/chat/completions","body":{"model":"llama-3.3-70b","messages":[{"role":"user","content":"Capital of Peru?"}]}}
{"custom_id":"v1","method":"POST","url":"/v1/embeddings","body":{"input":"a text to embed"}}
`), 0o644)

	job := batch.Job{Input: input, Output: output, Concurrency: 2}
	sum, err := batch.Run(context.Background(), client, job)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d of %d succeeded, %d sent\n", sum.Succeeded, sum.Total, sum.Sent)

	sum, _ = batch.Run(context.Background(), client, job)
	fmt.Printf("again: %d resumed, %d sent\n", sum.Resumed, sum.Sent)
	// Output:
	// 3 of 3 succeeded, 3 sent
	// again: 3 resumed, 0 sent
}

// A bad line stops the run before anything is sent, named by its line number.
func ExampleInputError() {
	gateway := gatewaytest.NewServer()
	defer gateway.Close()

	dir, _ := os.MkdirTemp("", "batch")
	defer os.RemoveAll(dir)
	input := filepath.Join(dir, "requests.jsonl")
	os.WriteFile(input, []byte(
		`{"custom_id":"q1","method":"POST","url":"/v1/chat/completions","body":{"messages":[{"role":"user","content":"Hi"}]}}
{"custom_id":"q1","method":"POST","url":"/v1/chat/completions","body":{"messages":[]}}
`), 0o644)

	_, err := batch.Run(context.Background(), gateway.Client(), batch.Job{Input: input, Output: filepath.Join(dir, "out.jsonl")})
	fmt.Println(err)
	fmt.Println(len(gateway.Requests()), "sent")
	// Output:
	// line 2 (custom_id "q1"): infergate: invalid Messages: at least one message is required
	// line 2 (custom_id "q1"): custom_id is line 1's already
	// 0 sent
}
