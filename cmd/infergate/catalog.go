package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	infergate "github.com/infergate/infergate-go"
)

// modelTypes are the values --type takes, as people type them.
var modelTypes = map[string]infergate.ModelType{
	"llm": infergate.ModelTypeLLM, "embedding": infergate.ModelTypeEmbedding,
	"tts": infergate.ModelTypeTTS, "stt": infergate.ModelTypeSTT,
}

func (a *app) models(ctx context.Context, args []string) error {
	f := a.newFlags("models")
	kind := f.String("type", "", "only models of this type: llm, embedding, tts or stt")
	if _, err := f.parse(args, 0, 0); err != nil {
		return err
	}
	want, ok := modelTypes[strings.ToLower(*kind)]
	if *kind != "" && !ok {
		return usagef("--type %q is not one of llm, embedding, tts, stt", *kind)
	}
	client, stop, err := a.connect(f)
	if err != nil {
		return err
	}
	defer stop()
	all, err := client.Models.List(ctx)
	if err != nil {
		return err
	}
	models := make([]infergate.Model, 0, len(all))
	for _, m := range all {
		if *kind == "" || m.Type == want {
			models = append(models, m)
		}
	}
	if f.json {
		out := make([]modelJSON, len(models))
		for i, m := range models {
			out[i] = modelOutput(m)
		}
		return writeJSON(a.stdout, out)
	}
	t := newTable(a.stdout, "MODEL", "TYPE", "TAGS", "CREATED", "BLOCKCHAIN ID")
	for _, m := range models {
		created := time.Time{}
		if m.Created > 0 {
			created = time.Unix(m.Created, 0)
		}
		t.row(m.ID, orDash(string(m.Type)), orDash(strings.Join(m.Tags, ",")), date(created), orDash(m.BlockchainID))
	}
	return t.flush()
}

// checkModel looks a model a command is asked for up in the catalogue, as the gateway will: a near
// miss, which the gateway refuses, fails here with the names the gateway would suggest; a name
// close to none, which the gateway answers with its default model without a word, is sent after a
// warning. A catalogue that cannot be read stops nothing: the gateway has the last word.
func (a *app) checkModel(ctx context.Context, client *infergate.Client, name string) error {
	if name == "" {
		return nil
	}
	_, err := client.Models.Resolve(ctx, name)
	var notFound *infergate.ModelNotFoundError
	switch {
	case !errors.As(err, &notFound):
		return nil
	case len(notFound.Suggestions) > 0:
		quoted := make([]string, len(notFound.Suggestions))
		for i, s := range notFound.Suggestions {
			quoted[i] = strconv.Quote(s)
		}
		return usagef("model %q is not in the gateway's catalogue: did you mean %s?",
			name, strings.Join(quoted, " or "))
	}
	fmt.Fprintf(a.stderr, "infergate: model %q is not in the gateway's catalogue, so the gateway answers with its default model (infergate models lists them)\n", name)
	return nil
}

// rankedBid is a bid as bids --json prints it: the bid and what a session of the asked length
// costs on it.
type rankedBid struct {
	Bid  bidJSON         `json:"bid"`
	Cost infergate.Money `json:"cost"`
	Best bool            `json:"best"` // the bid a session would use (infergate.BestBid)
}

func (a *app) bids(ctx context.Context, args []string) error {
	f := a.newFlags("bids")
	duration := f.Duration("duration", time.Hour, "the session length to price, such as 10m or 2h")
	rest, err := f.parse(args, 1, 1)
	if err != nil {
		return err
	}
	if *duration < time.Second {
		return usagef("--duration %v is shorter than a second", *duration)
	}
	client, stop, err := a.connect(f)
	if err != nil {
		return err
	}
	defer stop()
	name := rest[0]
	m, err := client.Models.Resolve(ctx, name)
	var notFound *infergate.ModelNotFoundError
	switch {
	case errors.As(err, &notFound):
		return err // it names the models the gateway finds close, if any
	case err == nil:
		name = m.ID // the gateway's spellings of a name (case, slug) are the catalogue's
	}
	bids, err := client.Bids.Rated(ctx, name)
	if err != nil {
		return err
	}
	bids = infergate.RankBids(bids)
	best, hasBest := infergate.BestBid(bids)
	ranked := make([]rankedBid, len(bids))
	for i, b := range bids {
		ranked[i] = rankedBid{Bid: bidOutput(b), Cost: b.Cost(*duration), Best: hasBest && b.ID == best.ID}
	}
	if f.json {
		return writeJSON(a.stdout, ranked)
	}
	if len(bids) == 0 {
		fmt.Fprintf(a.stdout, "no bids for %s\n", rest[0])
		return nil
	}
	t := newTable(a.stdout, "", "BID", "PROVIDER", "PRICE/SECOND", "COST/"+durationText(*duration), "RATING", "SESSIONS", "AVAILABILITY")
	for i, b := range bids {
		mark := ""
		if ranked[i].Best {
			mark = "*"
		}
		sessions := "-" // the marketplace's shape of a bid does not count them
		if !marketShape(b) {
			sessions = strconv.FormatInt(b.TotalSessions, 10)
		}
		t.row(mark, short(b.ID), short(b.Provider), b.PricePerSecond.String(),
			ranked[i].Cost.String(), rating(b), sessions, orDash(string(b.Availability)))
	}
	if err := t.flush(); err != nil {
		return err
	}
	if hasBest {
		fmt.Fprintf(a.stdout, "* best: %s, %s for %s\n", best.ID, best.Cost(*duration).String(), durationText(*duration))
	} else {
		fmt.Fprintln(a.stdout, "no bid is available now")
	}
	return nil
}

// rating is the contract's rating out of 5, or the marketplace's score when that is all a bid has.
func rating(b infergate.RatedBid) string {
	if marketShape(b) {
		return "score " + strconv.FormatFloat(b.Score, 'f', -1, 64)
	}
	return strconv.FormatFloat(b.Rating, 'f', 2, 64) + "/5"
}

// short cuts a 0x id to its first and last characters, enough to tell bids apart in a table.
func short(id string) string {
	if len(id) <= 14 {
		return id
	}
	return id[:8] + "…" + id[len(id)-4:]
}

// durationText shows a duration without zero units: 1h, 30m, 1h30m.
func durationText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
