package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/recon"
	"github.com/paygate/gateway/recon/families"
	"github.com/paygate/gateway/schema"
)

const reconcileUsage = `usage: gateway reconcile --channel REF --date YYYY-MM-DD [--account ID] [--json] FILE

  Imports a provider's settlement statement of one UTC day for the channel REF
  ([sandbox.]<method>.<id>, as "gateway channel list" names it): each line is
  matched to our paid payments of that channel and day (the journal's copy in
  ClickHouse, GATEWAY_CLICKHOUSE_DSN); every difference (missing with us,
  missing at the provider, amount differs, fee differs, duplicate) is an
  entry of the exceptions queue; each matched line clears the channel's
  receivable once. Importing the same file again changes nothing.
  --account is the provider account the statement must be of (default: its
  first row's); a row of another account refuses the file.
`

// maxStatementBytes bounds the file read: a day of two million rows.
const maxStatementBytes = 512 << 20

// reconcileCmd imports a statement.
func reconcileCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := subFlags("reconcile", "", "--channel REF --date YYYY-MM-DD FILE", args, stdout, stderr)
	redisFlag := bindRedis(fs)
	cfg := platform.Defaults()
	b := platform.NewBinder(fs)
	b.String(&cfg.ClickHouseDSN, "clickhouse-dsn", "GATEWAY_CLICKHOUSE_DSN", "ClickHouse DSN (native protocol)")
	b.String(&cfg.ClickHouseCluster, "clickhouse-cluster", "GATEWAY_CLICKHOUSE_CLUSTER", "cluster the tables are sharded over; empty: one node")
	ref := fs.String("channel", "", "the channel: [sandbox.]<method>.<id>")
	date := fs.String("date", "", "the statement's UTC day, YYYY-MM-DD")
	account := fs.String("account", "", "the provider account every row must be of (default: the first row's)")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if err := errors.Join(b.Errs()...); err != nil {
		return err
	}
	ch, parse, day, err := reconcileArgs(*ref, *date, *account, pos)
	if err != nil {
		fmt.Fprint(stderr, reconcileUsage)
		return fmt.Errorf("reconcile: %w", err)
	}
	file, err := readBounded(pos[0])
	if err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	rdb, err := redisFlag.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	chc, err := platform.OpenClickHouseCluster(cfg.ClickHouseDSN, cfg.ClickHouseCluster)
	if err != nil {
		return err
	}
	defer chc.Close()
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		return err
	}
	res, err := families.NewImporter(chc, rdb, j, nil).Import(ctx, ch, day, file, parse)
	if err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	bals, err := j.PlatformBalances(ctx)
	if err != nil {
		return fmt.Errorf("reconcile: read the receivable: %w", err)
	}
	return printReconcile(output{w: stdout, json: *asJSON}, res, bals[journal.Receivable(ch)])
}

func reconcileArgs(ref, date, account string, pos []string) (string, recon.Parser, time.Time, error) {
	if len(pos) != 1 {
		return "", nil, time.Time{}, errors.New("one statement FILE is required")
	}
	r, err := families.Check(ref)
	if err != nil {
		return "", nil, time.Time{}, err
	}
	p, err := families.Parser(r, account)
	if err != nil {
		return "", nil, time.Time{}, err
	}
	day, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return "", nil, time.Time{}, errors.New("--date is a day such as 2026-11-27")
	}
	return r.String(), p, day, nil
}

// readBounded reads a statement file, refusing one past maxStatementBytes.
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxStatementBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > maxStatementBytes {
		return nil, fmt.Errorf("%s is over %d bytes", path, maxStatementBytes)
	}
	return b, nil
}

// printReconcile prints the report and what the channel still owes, per
// currency (negative: owed to the platform; it rises towards zero as
// statements are reconciled).
func printReconcile(o output, r recon.Result, owed map[string]schema.Amount) error {
	if o.json {
		kinds := map[recon.Kind]int{}
		evidence := make([]string, 0, len(r.Findings))
		for _, f := range r.Findings {
			kinds[f.Kind]++
			evidence = append(evidence, string(f.Kind)+": "+f.Evidence())
		}
		return o.value(map[string]any{"key": r.Key, "again": r.Again, "lines": r.Lines, "payments": r.Payments,
			"matched": len(r.Matched), "posted": r.Posted, "unposted": r.Unposted, "findings": kinds, "evidence": evidence,
			"receivable": owed})
	}
	fmt.Fprintf(o.w, "statement: %d lines, %d payments of ours, %d matched, %d posted now", r.Lines, r.Payments, len(r.Matched), r.Posted)
	if r.Again {
		fmt.Fprint(o.w, " (imported before: nothing changed)")
	}
	fmt.Fprintln(o.w)
	for _, k := range []recon.Kind{recon.MissingWithUs, recon.MissingAtProvider, recon.AmountDiffers, recon.FeeDiffers, recon.Duplicate} {
		fmt.Fprintf(o.w, "%-20s %d\n", k, r.Count(k))
	}
	for _, f := range r.Findings {
		fmt.Fprintf(o.w, "  %s: %s\n", f.Kind, f.Evidence())
	}
	for _, id := range r.Unposted {
		fmt.Fprintf(o.w, "  matched but not posted (the ledger has no payment %s)\n", id)
	}
	for cur, n := range owed {
		fmt.Fprintf(o.w, "receivable now %s %s\n", n, cur)
	}
	return nil
}
