package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/ledger"
	"github.com/paygate/gateway/platform"
)

const ledgerJournalUsage = `usage: gateway ledger <subcommand> [--json] [--redis-url URL]

  verify                the journal's audit: every entry sums to zero per
                        currency, no transaction posted twice, every balance
                        the sum of its postings; exits non-zero listing the
                        problems (docs/ledger.md)
  settle                one settlement pass now: every move due is posted
                        (what the ledger role does every 10 s)
  balances APPID        a merchant's pending, available, reserve and payout
                        hold per currency
`

var ledgerJournalSynopsis = map[string]string{"verify": "[--json]", "settle": "[--json]", "balances": "APPID [--json]"}

// ledgerJournalCmd audits the journal, settles what is due, shows balances.
func ledgerJournalCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	sub, fs, err := subcommand("ledger", ledgerJournalUsage, ledgerJournalSynopsis, args, stdout, stderr)
	if err != nil {
		return err
	}
	synopsis := ledgerJournalSynopsis[sub]
	redisFlag := bindRedis(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	var offset time.Duration
	b := platform.NewBinder(fs)
	b.Duration(&offset, "clock-offset", "GATEWAY_CLOCK_OFFSET", "settle: FAULT TESTING AND DEMOS ONLY: settle what falls due this much later (at most 24h)")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if err := errors.Join(b.Errs()...); err != nil {
		return err
	}
	if offset < -platform.MaxClockOffset || offset > platform.MaxClockOffset {
		return fmt.Errorf("ledger %s: --clock-offset %s: at most %s either way", sub, offset, platform.MaxClockOffset)
	}
	if want := map[string]int{"balances": 1}[sub]; len(pos) != want {
		return fmt.Errorf("ledger %s: want %s, got %d argument(s)\n%s", sub, synopsis, len(pos), ledgerJournalUsage)
	}
	rdb, err := redisFlag.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		return err
	}
	out := output{w: stdout, json: *asJSON}
	switch sub {
	case "verify":
		return ledgerVerify(ctx, j, out)
	case "settle":
		now := func() time.Time { return time.Now().Add(offset) }
		s, err := ledger.NewSettler(ledger.Config{Now: now}, rdb, j, prometheus.NewRegistry(), slog.New(slog.NewTextHandler(stderr, nil)))
		if err != nil {
			return err
		}
		r, err := s.Pass(ctx)
		if err != nil {
			return fmt.Errorf("ledger settle: %w", err)
		}
		if out.json {
			return out.value(r)
		}
		fmt.Fprintf(stdout, "settled %d move(s); %d still due\n", r.Settled, r.Due)
		return nil
	}
	return ledgerBalances(ctx, j, pos[0], out)
}

func ledgerVerify(ctx context.Context, j *journal.Journal, out output) error {
	r, err := j.Verify(ctx)
	if err != nil {
		return fmt.Errorf("ledger verify: %w", err)
	}
	if out.json {
		if err := out.value(r); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(out.w, "%d journal entries read\n", r.Entries)
		for _, p := range r.Problems {
			fmt.Fprintln(out.w, "PROBLEM", p)
		}
	}
	if !r.OK() {
		return fmt.Errorf("ledger verify: %d problem(s) in the journal", len(r.Problems))
	}
	if !out.json {
		fmt.Fprintln(out.w, "journal OK")
	}
	return nil
}

func ledgerBalances(ctx context.Context, j *journal.Journal, appid string, out output) error {
	bs, err := j.Balances(ctx, appid)
	if err != nil {
		return fmt.Errorf("ledger balances: %w", err)
	}
	if out.json {
		return out.value(nonNil(bs))
	}
	if len(bs) == 0 {
		return noRows(out.w, "balances", "")
	}
	tw := tabwriter.NewWriter(out.w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CURRENCY\tPENDING\tAVAILABLE\tRESERVE\tPAYOUT HOLD\t")
	for _, b := range bs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", b.Currency, b.Pending, b.Available, b.Reserve, b.PayoutHold)
	}
	return tw.Flush()
}
