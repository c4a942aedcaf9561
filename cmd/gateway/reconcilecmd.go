package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/recon"
	"github.com/paygate/gateway/recon/families"
	"github.com/paygate/gateway/schema"
)

const reconcileUsage = `usage: gateway reconcile --channel REF --date YYYY-MM-DD [--account ID] [--by NAME] [--json] FILE

  Imports a provider's settlement statement of one UTC day for the channel REF
  ([sandbox.]<method>.<id>, as "gateway channel list" names it): each line is
  matched to our paid payments of that channel and day (the journal's copy in
  ClickHouse, GATEWAY_CLICKHOUSE_DSN); every difference (missing with us,
  missing at the provider, amount differs, fee differs, duplicate) is an
  entry of the exceptions queue; each matched line clears the channel's
  receivable once. Importing the same file again changes nothing.
  --account is the provider account the statement must be of (default: its
  first row's); a row of another account refuses the file. Each import is in
  the audit log by --by NAME (default: the OS user) with the channel, day,
  the file's sha256 and the counts, as the console's Reconciliation page's.
`

// maxStatementBytes bounds the file read: a day of two million rows.
const maxStatementBytes = 512 << 20

// reconcileCmd imports a statement through the console's use case: the
// same checks, the same audit entry (the CLI's, by --by), the same
// last-import record the Reconciliation page shows.
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
	by := fs.String("by", "", "who imports, recorded in the audit log (default: the OS user)")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if err := errors.Join(b.Errs()...); err != nil {
		return err
	}
	if err := reconcileArgs(*ref, *date, pos); err != nil {
		fmt.Fprint(stderr, reconcileUsage)
		return fmt.Errorf("reconcile: %w", err)
	}
	actor, err := cliAuditActor(*by, given(fs, "by"))
	if err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	f, err := os.Open(pos[0])
	if err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	defer f.Close()
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
	rc, err := operator.NewReconciliation(operator.ReconConfig{MaxFile: maxStatementBytes, Shown: math.MaxInt32},
		families.NewImporter(chc, rdb, j, nil), j, rdb, nil, audit.NewLog(rdb))
	if err != nil {
		return err
	}
	rep, err := rc.Import(ctx, actor, operator.Statement{Channel: *ref, Day: *date, Account: *account, File: f})
	if err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	owed, err := j.Receivables(ctx)
	if err != nil {
		return fmt.Errorf("reconcile: read the receivable: %w", err)
	}
	return printReconcile(output{w: stdout, json: *asJSON}, rep, owed[rep.Channel])
}

// reconcileArgs refuses a command line the import could not start from,
// before anything is opened.
func reconcileArgs(ref, date string, pos []string) error {
	if len(pos) != 1 {
		return errors.New("one statement FILE is required")
	}
	if _, err := families.Check(ref); err != nil {
		return err
	}
	if _, err := time.Parse(time.DateOnly, date); err != nil {
		return errors.New("--date is a day such as 2026-11-27")
	}
	return nil
}

// printReconcile prints the report and what the channel still owes, per
// currency (negative: owed to the platform; it rises towards zero as
// statements are reconciled).
func printReconcile(o output, r operator.ReconReport, owed map[string]schema.Amount) error {
	if o.json {
		kinds := map[recon.Kind]int{}
		for _, k := range r.Counts {
			if k.N > 0 {
				kinds[k.Kind] = k.N
			}
		}
		evidence := make([]string, 0, len(r.Findings))
		for _, f := range r.Findings {
			evidence = append(evidence, string(f.Kind)+": "+f.Evidence)
		}
		return o.value(map[string]any{"key": r.Key, "sha256": r.SHA256, "again": r.Again, "lines": r.Lines, "payments": r.Payments,
			"matched": r.Matched, "posted": r.Posted, "unposted": r.Unposted, "findings": kinds, "evidence": evidence,
			"receivable": owed})
	}
	fmt.Fprintf(o.w, "statement: %d lines, %d payments of ours, %d matched, %d posted now", r.Lines, r.Payments, r.Matched, r.Posted)
	if r.Again {
		fmt.Fprint(o.w, " (imported before: nothing changed)")
	}
	fmt.Fprintln(o.w)
	for _, k := range r.Counts {
		fmt.Fprintf(o.w, "%-20s %d\n", k.Kind, k.N)
	}
	for _, f := range r.Findings {
		fmt.Fprintf(o.w, "  %s: %s\n", f.Kind, f.Evidence)
	}
	for _, id := range r.Unposted {
		fmt.Fprintf(o.w, "  matched but not posted (the ledger has no payment %s)\n", id)
	}
	for cur, n := range owed {
		fmt.Fprintf(o.w, "receivable now %s %s\n", n, cur)
	}
	return nil
}
