package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/query"
	"github.com/paygate/gateway/schema"
)

const ledgerIncomeUsage = `usage: gateway ledger <subcommand>

  income --from YYYY-MM-DD --to YYYY-MM-DD [--json]
                        the platform's fee income from the journal's copy in
                        ClickHouse (GATEWAY_CLICKHOUSE_DSN), by UTC day,
                        transaction type, payment method and currency, both
                        days included, and its total per currency
`

// ledgerIncomeSynopsis is each ledger subcommand's arguments, for its own --help.
var ledgerIncomeSynopsis = map[string]string{"income": "--from YYYY-MM-DD --to YYYY-MM-DD [--json]"}

// ledgerIncomeCmd reads the ledger's reports.
func ledgerIncomeCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, ledgerIncomeUsage)
		return errors.New("ledger: no subcommand given")
	}
	synopsis, ok := ledgerIncomeSynopsis[args[0]]
	if !ok {
		fmt.Fprint(stderr, ledgerIncomeUsage)
		return fmt.Errorf("ledger: unknown subcommand %q", args[0])
	}
	fs := subFlags("ledger", args[0], synopsis, args[1:], stdout, stderr)
	cfg := platform.Defaults()
	b := platform.NewBinder(fs)
	b.String(&cfg.ClickHouseDSN, "clickhouse-dsn", "GATEWAY_CLICKHOUSE_DSN", "ClickHouse DSN (native protocol)")
	b.String(&cfg.ClickHouseCluster, "clickhouse-cluster", "GATEWAY_CLICKHOUSE_CLUSTER", "cluster the tables are sharded over; empty: one node")
	from := fs.String("from", "", "first UTC day, YYYY-MM-DD")
	to := fs.String("to", "", "last UTC day, YYYY-MM-DD (included)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if err := errors.Join(b.Errs()...); err != nil {
		return err
	}
	f, t, err := incomeRange(*from, *to)
	if err != nil {
		return fmt.Errorf("ledger income: %w", err)
	}
	ch, err := platform.OpenClickHouseCluster(cfg.ClickHouseDSN, cfg.ClickHouseCluster)
	if err != nil {
		return err
	}
	defer ch.Close()
	rows, err := query.NewStatements(ch).FeeIncome(ctx, f, t.AddDate(0, 0, 1))
	if err != nil {
		return err
	}
	return printIncome(output{w: stdout, json: *asJSON}, rows)
}

// incomeRange reads --from and --to, both required UTC days, from first.
func incomeRange(from, to string) (time.Time, time.Time, error) {
	if from == "" || to == "" {
		return time.Time{}, time.Time{}, errors.New("--from and --to are required (YYYY-MM-DD)")
	}
	f, err1 := time.Parse(time.DateOnly, from)
	t, err2 := time.Parse(time.DateOnly, to)
	if err1 != nil || err2 != nil {
		return time.Time{}, time.Time{}, errors.New("--from and --to are days such as 2026-11-01")
	}
	if t.Before(f) || t.Sub(f) >= query.MaxStatementRange {
		return time.Time{}, time.Time{}, errors.New("--to must be from --from to 399 days after it")
	}
	return f, t, nil
}

// incomeLine is one row of the income as --json prints it.
type incomeLine struct {
	Day      string `json:"day"`
	Type     string `json:"type"`
	Method   string `json:"method"`
	Currency string `json:"currency"`
	Fees     string `json:"fees"`
	Postings uint64 `json:"postings"`
}

func printIncome(out output, rows []query.IncomeRow) error {
	lines := make([]incomeLine, 0, len(rows))
	totals := map[string]schema.Amount{}
	var curs []string
	for _, r := range rows {
		lines = append(lines, incomeLine{Day: r.Day.Format(time.DateOnly), Type: r.Kind, Method: r.Method, Currency: r.Currency,
			Fees: r.Fees.String(), Postings: r.Count})
		if _, seen := totals[r.Currency]; !seen {
			curs = append(curs, r.Currency)
		}
		totals[r.Currency] += r.Fees
	}
	if out.json {
		return out.value(lines)
	}
	if len(lines) == 0 {
		return noRows(out.w, "income in these days", "")
	}
	tw := tabwriter.NewWriter(out.w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DAY\tTYPE\tMETHOD\tCURRENCY\tFEES\tPOSTINGS")
	for _, l := range lines {
		method := l.Method
		if method == "" {
			method = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\n", l.Day, l.Type, method, l.Currency, l.Fees, l.Postings)
	}
	for _, c := range curs {
		fmt.Fprintf(tw, "total\t\t\t%s\t%s\t\n", c, totals[c])
	}
	return tw.Flush()
}
