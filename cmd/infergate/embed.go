package main

import (
	"bufio"
	"context"
	"strings"

	infergate "github.com/infergate/infergate-go"
)

// embedded is what embed prints: each text with its vector, in the order given.
type embedded struct {
	Model   string          `json:"model"`
	Vectors []embeddedText  `json:"vectors"`
	Usage   infergate.Usage `json:"usage"`
}

type embeddedText struct {
	Text      string    `json:"text"`
	Embedding []float32 `json:"embedding"`
}

func (a *app) embed(ctx context.Context, args []string) error {
	f := a.newFlags("embed")
	model := f.String("m", "", "the embeddings model (default: the gateway's choice)")
	texts, err := f.parse(args, 0, -1)
	if err != nil {
		return err
	}
	if len(texts) == 0 {
		scanner := bufio.NewScanner(a.stdin)
		scanner.Buffer(nil, 1<<20)
		for scanner.Scan() {
			if line := strings.TrimSpace(scanner.Text()); line != "" {
				texts = append(texts, line)
			}
		}
		if err := scanner.Err(); err != nil {
			return err
		}
	}
	if len(texts) == 0 {
		return usagef("give texts as arguments, or one per line on stdin")
	}
	client, stop, err := a.connect(f)
	if err != nil {
		return err
	}
	defer stop()
	resp, err := client.Embeddings.Create(ctx, infergate.EmbeddingRequest{Model: *model, Input: texts})
	if err != nil {
		return err
	}
	out := embedded{Model: resp.Model, Usage: resp.Usage, Vectors: make([]embeddedText, len(resp.Data))}
	for i, d := range resp.Data {
		out.Vectors[i] = embeddedText{Text: texts[i], Embedding: d.Embedding}
	}
	return writeJSON(a.stdout, out)
}
