package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/paygate/gateway/fees"
	"github.com/paygate/gateway/operator"
)

const feesUsage = `usage: gateway fees <subcommand> [--json] [--redis-url URL]

  list                  every fee schedule: the operator's defaults, then
                        the merchants' overrides
  set --method M --currency C [--merchant APPID] --bps N [--fixed A]
      [--min A] [--max A] [--by NAME]
                        from now on charge N basis points plus A fixed,
                        at least --min and at most --max (0: no maximum)
                        on orders of method M in currency C: the default,
                        or APPID's own (it wins over the default); orders
                        already initialised keep the schedule they recorded;
                        every process uses it within a second; recorded as
                        set by NAME, else by the OS user
  clear --method M --currency C [--merchant APPID] [--by NAME]
                        remove the schedule: a merchant pays the default
                        again, a default charges nothing
`

// feesSynopsis is each fees subcommand's arguments, for its own --help.
var feesSynopsis = map[string]string{
	"list":  "[--json]",
	"set":   "--method M --currency C [--merchant APPID] --bps N [--fixed A] [--min A] [--max A] [--by NAME] [--json]",
	"clear": "--method M --currency C [--merchant APPID] [--by NAME] [--json]",
}

// feesCmd lists, sets and clears the operator's fee schedules, each change
// audited as the CLI's (operator.Fees, the console's use case).
func feesCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	sub, fs, err := subcommand("fees", feesUsage, feesSynopsis, args, stdout, stderr)
	if err != nil {
		return err
	}
	redisFlag := bindRedis(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	var c operator.FeeChange
	var by string
	if sub != "list" {
		fs.StringVar(&c.Method, "method", "", "the payment method, e.g. wallet_a")
		fs.StringVar(&c.Currency, "currency", "", "the order currency, e.g. USD")
		fs.StringVar(&c.AppID, "merchant", "", "the merchant's appid: its own schedule (default: the operator default)")
		fs.StringVar(&by, "by", "", "who makes the change, recorded in the audit log (default: the OS user)")
	}
	if sub == "set" {
		fs.StringVar(&c.Bps, "bps", "", "basis points of the amount, a whole number 0 to 10000 (100 = 1%)")
		fs.StringVar(&c.Fixed, "fixed", "0", "a fixed amount per payment, e.g. 0.30")
		fs.StringVar(&c.Min, "min", "0", "the least fee per payment")
		fs.StringVar(&c.Max, "max", "0", "the most fee per payment; 0: no maximum")
	}
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return fmt.Errorf("fees %s: takes flags only, got %q\n%s", sub, pos, feesUsage)
	}
	if err := feesArgs(sub, c); err != nil {
		return err
	}
	actor, err := cliAuditActor(by, given(fs, "by"))
	if sub != "list" && err != nil {
		return fmt.Errorf("fees %s: %w", sub, err)
	}
	rdb, err := redisFlag.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	uc, out := operator.NewFees(fees.NewStore(rdb)), output{w: stdout, json: *asJSON}
	switch sub {
	case "set":
		s, err := uc.Set(ctx, actor, c)
		if err != nil {
			return fmt.Errorf("fees set: %w", err)
		}
		return printFees(out, []fees.Schedule{s})
	case "clear":
		if err := uc.Clear(ctx, actor, c); err != nil {
			return fmt.Errorf("fees clear: %w", err)
		}
		if out.json {
			return out.value(map[string]any{"cleared": true})
		}
		fmt.Fprintln(stdout, "cleared")
		return nil
	}
	all, err := uc.List(ctx, actor)
	if err != nil {
		return err
	}
	return printFees(out, all)
}

// feesArgs checks a change before it connects anywhere: the target, and
// set's schedule (a "-1" or "0.001" is refused here, nothing written).
func feesArgs(sub string, c operator.FeeChange) error {
	if sub == "list" {
		return nil
	}
	if _, err := fees.ParseTarget(c.AppID, c.Method, c.Currency); err != nil {
		return fmt.Errorf("fees %s: %w", sub, err)
	}
	if sub == "set" {
		if _, err := fees.Parse(c.Input); err != nil {
			return fmt.Errorf("fees set: %w", err)
		}
	}
	return nil
}

// feeRow is a schedule as the CLI prints it: amounts as decimals, and the
// stored form ("bps:fixed:min:max" in minor units) for scripts.
type feeRow struct {
	Merchant string `json:"merchant"` // "" for the default
	Method   string `json:"method"`
	Currency string `json:"currency"`
	Bps      int64  `json:"bps"`
	Fixed    string `json:"fixed"`
	Min      string `json:"min"`
	Max      string `json:"max"`
	Fee      string `json:"fee"`
}

func printFees(out output, all []fees.Schedule) error {
	rows := make([]feeRow, len(all))
	for i, s := range all {
		rows[i] = feeRow{Merchant: s.AppID, Method: string(s.Method), Currency: s.Currency, Bps: s.Fee.Bps,
			Fixed: s.Fee.Fixed.String(), Min: s.Fee.Min.String(), Max: s.Fee.Max.String(), Fee: fees.Describe(s.Fee)}
	}
	if out.json {
		return out.value(rows)
	}
	if len(rows) == 0 {
		return noRows(out.w, "fee schedules", "gateway fees set --method M --currency C --bps N")
	}
	tw := tabwriter.NewWriter(out.w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MERCHANT\tMETHOD\tCURRENCY\tFEE")
	for _, r := range rows {
		who := r.Merchant
		if who == "" {
			who = "(default)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", who, r.Method, r.Currency, r.Fee)
	}
	return tw.Flush()
}
