// Embeddings ranks a few sentences by how close their meaning is to a question: it embeds them all
// in one request and sorts them by cosine similarity to the question's vector.
//
//	go run ./examples/embeddings
//
// It talks to the gateway at INFERGATE_BASE_URL (else the real one) when INFERGATE_API_KEY or
// INFERGATE_BASE_URL is set, and otherwise to an in-process fake, whose vectors only reflect shared
// words.
package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"slices"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

var sentences = []string{
	"The Eiffel Tower is in Paris.",
	"Bananas are rich in potassium.",
	"Paris is the capital of France.",
	"The stock market fell on Monday.",
}

const question = "What is the capital of France?"

func main() {
	client, stop, err := gatewaytest.Connect(os.Stdout, os.Getenv)
	if err != nil {
		log.Fatal(err)
	}
	err = run(context.Background(), os.Stdout, client, os.Getenv("INFERGATE_EMBEDDING_MODEL"))
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

// run embeds the question and the sentences with model (empty for the gateway's default) and
// prints the sentences from the closest to the farthest.
func run(ctx context.Context, out io.Writer, client *infergate.Client, model string) error {
	resp, err := client.Embeddings.Create(ctx, infergate.EmbeddingRequest{
		Model: model,
		Input: append([]string{question}, sentences...),
	})
	if err != nil {
		return err
	}
	type scored struct {
		text  string
		score float64
	}
	q := resp.Data[0].Embedding
	ranked := make([]scored, len(sentences))
	for i, s := range sentences {
		ranked[i] = scored{s, shown(cosine(q, resp.Data[i+1].Embedding))}
	}
	slices.SortStableFunc(ranked, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	fmt.Fprintf(out, "%s\n", question)
	for _, r := range ranked {
		fmt.Fprintf(out, "  %.3f  %s\n", r.score, r.text)
	}
	fmt.Fprintf(out, "(%s, %d tokens)\n", resp.Model, resp.Usage.TotalTokens)
	return nil
}

// shown is a score as printed, to three places, so that sentences whose scores print alike keep
// their order, whatever the last bits of the vectors (and a score of -0.0001 prints as 0.000).
func shown(score float64) float64 {
	rounded := math.Round(score*1000) / 1000
	if rounded == 0 {
		return 0
	}
	return rounded
}

// cosine is the cosine of the angle between a and b: 1 for the same direction, 0 for unrelated.
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
