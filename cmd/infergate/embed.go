package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	infergate "github.com/infergate/infergate-go"
)

// embeddedText is one text of embed --json with its vector.
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
		input, err := a.readStdin()
		if err != nil {
			return err
		}
		for line := range strings.Lines(string(input)) {
			if line := strings.TrimSpace(line); line != "" {
				texts = append(texts, line)
			}
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
	if err := a.checkModel(ctx, client, *model); err != nil {
		return err
	}
	resp, err := client.Embeddings.Create(ctx, infergate.EmbeddingRequest{Model: *model, Input: texts})
	if err != nil {
		return err
	}
	vectors := make([]embeddedText, len(resp.Data))
	for i, d := range resp.Data {
		vectors[i] = embeddedText{Text: texts[i], Embedding: d.Embedding}
	}
	if f.json {
		return writeEmbeddings(a.stdout, resp.Model, vectors, resp.Usage)
	}
	t := newTable(a.stdout, "TEXT", "DIMENSIONS", "VECTOR")
	for _, v := range vectors {
		t.row(v.Text, strconv.Itoa(len(v.Embedding)), vectorPreview(v.Embedding))
	}
	if err := t.flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.stdout, "model %s, %d tokens (--json prints the whole vectors)\n", orDash(resp.Model), resp.Usage.TotalTokens)
	return err
}

// previewed is how many of a vector's values the table shows.
const previewed = 4

// vectorPreview shows a vector's first values, enough to tell two apart at a glance.
func vectorPreview(v []float32) string {
	parts := make([]string, 0, previewed+1)
	for i, x := range v {
		if i == previewed {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, strconv.FormatFloat(float64(x), 'f', 4, 32))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// writeEmbeddings prints embed --json: indented as the other commands' JSON is, but with each
// text and its vector on one line, so that a vector does not spread over a screen per number.
func writeEmbeddings(w io.Writer, model string, vectors []embeddedText, usage infergate.Usage) error {
	modelJSON, err := json.Marshal(model)
	if err != nil {
		return err
	}
	usageJSON, err := json.MarshalIndent(usage, "  ", "  ")
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{\n  \"model\": %s,\n  \"vectors\": [", modelJSON)
	for i, v := range vectors {
		line, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "\n    %s", line)
	}
	if len(vectors) > 0 {
		b.WriteString("\n  ")
	}
	fmt.Fprintf(&b, "],\n  \"usage\": %s\n}\n", usageJSON)
	_, err = io.WriteString(exact(w), b.String())
	return err
}
