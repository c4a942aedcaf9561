package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/payout"
)

const ledgerMoneyUsage = `usage: gateway ledger <subcommand> [--json] [--redis-url URL] [--by NAME] ...

  journal APPID [--limit N] [--before ID]
                                  (the merchant's journal, newest first, and its balances;
                                  --before continues from the cursor a page printed)
  adjust APPID --amount ±X --currency C --reason R [--bucket available|pending|reserve]
                                  (a manual adjustment: + credits, - debits; above
                                  GATEWAY_ADJUST_APPROVAL_ABOVE it is a request a second
                                  admin approves in the operator console)
  adjustments [APPID]             (requests awaiting approval and recent adjustments)
  approve ID                      (approve a request made in the console; never one made
                                  with the CLI, nor your own)
  reject ID --reason R            (reject a request; nothing moves)
`

// ledgerMoneySynopsis is each subcommand's arguments, for its own --help.
var ledgerMoneySynopsis = map[string]string{
	"journal": "APPID [--limit N] [--before ID]", "adjust": "APPID --amount ±X --currency C --reason R [--bucket B]",
	"adjustments": "[APPID]", "approve": "ID", "reject": "ID --reason R",
}

// ledgerMoneyCmd runs the operator's money subcommands of `gateway ledger`:
// a merchant's journal and manual adjustments, through the use cases the
// operator console calls (operator.Money).
func ledgerMoneyCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, ledgerMoneyUsage)
		return fmt.Errorf("ledger: no subcommand given")
	}
	sub := args[0]
	synopsis, ok := ledgerMoneySynopsis[sub]
	if !ok {
		fmt.Fprint(stderr, ledgerMoneyUsage)
		return fmt.Errorf("ledger: unknown subcommand %q", sub)
	}
	fs := subFlags("ledger", sub, synopsis, args[1:], stdout, stderr)
	redisFlag := bindRedis(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	by := fs.String("by", "", "who makes the change, recorded in the audit log (default: the OS user)")
	o := bindLedgerMoneyFlags(fs, sub)
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if want := map[string]int{"journal": 1, "adjust": 1, "approve": 1, "reject": 1}[sub]; (sub == "adjustments" && len(pos) > 1) ||
		(sub != "adjustments" && len(pos) != want) {
		return fmt.Errorf("ledger %s: want %s\n%s", sub, synopsis, ledgerMoneyUsage)
	}
	actor, err := cliAuditActor(*by, given(fs, "by"))
	if err != nil {
		return fmt.Errorf("ledger %s: %w", sub, err)
	}
	if sub == "adjust" { // every check that needs no state, before connecting
		if _, err := operator.ParseAdjustment(operator.AdjustInput{AppID: pos[0], Amount: o.amount, Currency: o.currency,
			Bucket: o.bucket, Reason: o.reason}); err != nil {
			return err
		}
	}
	rdb, err := redisFlag.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	m, err := cliMoney(rdb)
	if err != nil {
		return err
	}
	return runLedgerMoney(ctx, m, actor, sub, pos, o, output{w: stdout, json: *asJSON})
}

func runLedgerMoney(ctx context.Context, m *operator.Money, actor access.Actor, sub string, pos []string, o *ledgerMoneyFlags, out output) error {
	switch sub {
	case "journal":
		p, err := m.Journal(ctx, actor, pos[0], o.before, o.limit)
		if err != nil {
			return err
		}
		return printJournal(out, p)
	case "adjust":
		a, err := m.Adjust(ctx, actor, operator.AdjustInput{AppID: pos[0], Amount: o.amount, Currency: o.currency, Bucket: o.bucket, Reason: o.reason})
		if err != nil {
			return err
		}
		return printAdjustments(out, nil, []operator.Adjustment{a})
	case "adjustments":
		appid := ""
		if len(pos) == 1 {
			appid = pos[0]
		}
		pending, recent, err := m.Adjustments(ctx, actor, appid, 50)
		if err != nil {
			return err
		}
		return printAdjustments(out, pending, recent)
	case "approve", "reject":
		var a operator.Adjustment
		var err error
		if sub == "approve" {
			a, err = m.Approve(ctx, actor, pos[0])
		} else {
			a, err = m.Reject(ctx, actor, pos[0], o.reason)
		}
		if err != nil {
			return err
		}
		return printAdjustments(out, nil, []operator.Adjustment{a})
	}
	return fmt.Errorf("ledger: unknown subcommand %q", sub)
}

// ledgerMoneyFlags are the flags of the money subcommands; each binds only
// its own.
type ledgerMoneyFlags struct {
	limit                            int
	before                           string
	amount, currency, bucket, reason string
}

func bindLedgerMoneyFlags(fs *flag.FlagSet, sub string) *ledgerMoneyFlags {
	o := &ledgerMoneyFlags{}
	switch sub {
	case "journal":
		fs.IntVar(&o.limit, "limit", 20, fmt.Sprintf("entries to print, at most %d", operator.MaxJournalPage))
		fs.StringVar(&o.before, "before", "", "print the entries older than this cursor (a page's next)")
	case "adjust":
		fs.StringVar(&o.amount, "amount", "", "signed amount: 100.00 credits, -12.50 debits")
		fs.StringVar(&o.currency, "currency", "", "currency, e.g. USD")
		fs.StringVar(&o.bucket, "bucket", "", "available (default), pending or reserve")
		fs.StringVar(&o.reason, "reason", "", "why: required, kept with the journal entry")
	case "reject":
		fs.StringVar(&o.reason, "reason", "", "why: required")
	}
	return o
}

// cliMoney is the money use cases as the CLI runs them, configured from
// the environment as serve is (GATEWAY_ADJUST_APPROVAL_ABOVE).
func cliMoney(rdb redis.UniversalClient) (*operator.Money, error) {
	cfg, err := envConfig()
	if err != nil {
		return nil, err
	}
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		return nil, err
	}
	m, err := operator.NewMoney(moneyConfig(cfg), rdb, merchant.NewStore(rdb), j, audit.NewLog(rdb), nil)
	if err != nil {
		return nil, err
	}
	// A change of a merchant's terms is remembered for maker-checker.
	p, err := payout.New(payoutConfig(cfg, time.Now), rdb, j, nil, nil)
	if err != nil {
		return nil, err
	}
	return m.WithPayouts(p), nil
}

func printJournal(out output, p operator.JournalPage) error {
	if out.json {
		p.Entries = nonNil(p.Entries)
		return out.value(p)
	}
	tw := tabwriter.NewWriter(out.w, 0, 4, 2, ' ', 0)
	if len(p.Balances) == 0 {
		fmt.Fprintln(tw, "no balances")
	} else {
		fmt.Fprintln(tw, "CURRENCY\tPENDING\tAVAILABLE\tRESERVE\tPAYOUT HOLD")
	}
	for _, b := range p.Balances {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", b.Currency, b.Pending, b.Available, b.Reserve, b.PayoutHold)
	}
	fmt.Fprintln(tw)
	if len(p.Entries) == 0 {
		fmt.Fprintln(tw, "no journal entries")
	} else {
		fmt.Fprintln(tw, "WHEN\tKIND\tREF\tBY\tMEMO\tPOSTINGS")
	}
	for _, e := range p.Entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.At.Format("2006-01-02 15:04:05"), e.Kind, e.Ref, dash(e.By), dash(e.Memo), postingsText(e.Postings))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if p.Next != "" {
		_, err := fmt.Fprintf(out.w, "\nmore: --before %s\n", p.Next)
		return err
	}
	return nil
}

func postingsText(ps []journal.Posting) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Account + " " + p.Amount.String() + " " + p.Currency
	}
	return strings.Join(parts, "; ")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func printAdjustments(out output, pending, recent []operator.Adjustment) error {
	if out.json {
		return out.value(map[string]any{"pending": nonNil(pending), "recent": nonNil(recent)})
	}
	if len(pending)+len(recent) == 0 {
		return noRows(out.w, "adjustments", "")
	}
	tw := tabwriter.NewWriter(out.w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tAPPID\tAMOUNT\tBUCKET\tMADE BY\tDECIDED BY\tREASON\tNOTE")
	for _, a := range append(pending, recent...) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s %s\t%s\t%s\t%s\t%s\t%s\n", a.ID, a.State, a.AppID, a.Amount, a.Currency, a.Bucket,
			a.Maker, dash(a.Checker), a.Reason, dash(a.Note))
	}
	return tw.Flush()
}
