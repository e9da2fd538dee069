package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	infergate "github.com/infergate/infergate-go"
)

func (a *app) balance(ctx context.Context, args []string) error {
	f := a.newFlags("balance")
	if _, err := f.parse(args, 0, 0); err != nil {
		return err
	}
	client, stop, err := a.connect(f)
	if err != nil {
		return err
	}
	defer stop()
	b, err := client.Billing.Balance(ctx)
	if err != nil {
		return err
	}
	if f.json {
		return writeJSON(a.stdout, b)
	}
	t := newTable(a.stdout, "BALANCE", "AMOUNT", "DETAIL")
	t.row("available", b.TotalAvailable.String(), "what calls can spend now")
	t.row("paid", b.Paid.Available.String(),
		"posted "+b.Paid.PostedBalance.String()+", held "+b.Paid.PendingHolds.String())
	staking := "not a staker"
	if b.IsStaker {
		staking = b.Staking.DailyAmount.String() + " a day, last granted " + date(b.Staking.RefreshDate)
	}
	t.row("staking", b.Staking.Available.String(), staking)
	overage := "no"
	if b.AllowOverage {
		overage = "yes"
	}
	t.row("overage", overage, "whether calls may spend beyond the balance")
	return t.flush()
}

func (a *app) usage(ctx context.Context, args []string) error {
	f := a.newFlags("usage")
	month := f.String("month", "", "the month as YYYY-MM (default this month, UTC)")
	if _, err := f.parse(args, 0, 0); err != nil {
		return err
	}
	start := a.now().UTC()
	if *month != "" {
		var err error
		// Year 0 parses, but a month of it is no month the gateway bills.
		if start, err = time.Parse("2006-01", *month); err != nil || start.Year() < 1 {
			return usagef("--month %q is not a month such as 2025-10", *month)
		}
	}
	client, stop, err := a.connect(f)
	if err != nil {
		return err
	}
	defer stop()
	var records []infergate.UsageRecord
	var total infergate.Money
	var tokens infergate.Usage // summed as the SDK sums counts, so that no record's count wraps the total
	for rec, err := range client.Billing.UsageForMonth(ctx, start.Year(), start.Month()) {
		if err != nil {
			return err
		}
		records = append(records, rec)
		if total, err = total.Add(rec.AmountTotal); err != nil {
			return err
		}
		tokens = tokens.Add(infergate.Usage{TotalTokens: rec.TotalTokens})
	}
	if f.json {
		out := make([]usageJSON, len(records))
		for i, r := range records {
			out[i] = usageOutput(r)
		}
		return writeJSON(a.stdout, out)
	}
	title := start.Format("January 2006")
	if len(records) == 0 {
		fmt.Fprintf(a.stdout, "no usage in %s\n", title)
		return nil
	}
	t := newTable(a.stdout, "TIME (UTC)", "MODEL", "ENDPOINT", "TOKENS", "COST", "REQUEST")
	for _, r := range records {
		t.row(r.CreatedAt.UTC().Format(time.DateTime), orDash(r.ModelName), orDash(r.Endpoint), strconv.Itoa(r.TotalTokens),
			r.AmountTotal.String(), orDash(r.RequestID))
	}
	if err := t.flush(); err != nil {
		return err
	}
	calls := "calls"
	if len(records) == 1 {
		calls = "call"
	}
	fmt.Fprintf(a.stdout, "%s: %d %s, %d tokens, %s\n", title, len(records), calls, tokens.TotalTokens, total.String())
	return nil
}

func (a *app) health(ctx context.Context, args []string) error {
	f := a.newFlags("health")
	if _, err := f.parse(args, 0, 0); err != nil {
		return err
	}
	client, stop, err := a.connect(f)
	if err != nil {
		return err
	}
	defer stop()
	h, err := client.Health.Check(ctx)
	if err != nil {
		return err
	}
	if f.json {
		err = writeJSON(a.stdout, json.RawMessage(h.Raw))
	} else {
		t := newTable(a.stdout, "CHECK", "STATUS")
		t.row("healthy", yesNo(h.Healthy()))
		t.row("status", orDash(h.Status))
		t.row("version", orDash(h.Version))
		t.row("database", orDash(h.Database))
		t.row("model service", orDash(h.ModelService.Status))
		t.row("models", strconv.Itoa(h.ModelService.ModelCount))
		if h.Uptime > 0 {
			t.row("uptime", h.Uptime.Round(time.Second).String())
		}
		err = t.flush()
	}
	if err == nil && !h.Healthy() {
		return exitError(exitFailed)
	}
	return err
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
