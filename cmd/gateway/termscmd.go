package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/operator"
)

const termsSynopsis = "APPID [--instant | --delay-days N --cutoff-hour H --tz ZONE] [--reserve-bps N --reserve-days D] [--refund-returns-fee=true|false] [--allow-negative=true|false] [--payout-currency CUR [--payout-min A] [--payout-fee A] [--payout-auto-approve-below A]]"

// merchantTermsCmd prints a merchant's terms, or changes those the flags
// give (the rest kept as they are), through the console's use case.
func merchantTermsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := subFlags("merchant", "terms", termsSynopsis, args, stdout, stderr)
	redisFlag := bindRedis(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	by := fs.String("by", "", "who makes the change, recorded in the audit log (default: the OS user)")
	var t merchant.Terms
	instant := fs.Bool("instant", false, "settle every payment at once")
	fs.IntVar(&t.DelayDays, "delay-days", 0, "settle D+N days after the payment's day (0 to 90)")
	fs.IntVar(&t.CutoffHour, "cutoff-hour", 0, "at this hour (0 to 23)")
	fs.StringVar(&t.TimeZone, "tz", "", "of this time zone, e.g. Asia/Shanghai")
	fs.IntVar(&t.ReserveBps, "reserve-bps", 0, "hold this share of each settled payment, in basis points (0 to 10000)")
	fs.IntVar(&t.ReserveDays, "reserve-days", 0, "for this many days")
	fs.BoolVar(&t.RefundReturnsFee, "refund-returns-fee", false, "a refund gives the fee back in proportion")
	fs.BoolVar(&t.AllowNegative, "allow-negative", false, "the merchant's balance may go below zero")
	var pay operator.PayoutTermsInput
	fs.StringVar(&pay.Currency, "payout-currency", "", "the balance currency whose payout terms the --payout-* flags set")
	fs.StringVar(&pay.Min, "payout-min", "", "the smallest payout, e.g. 10.00")
	fs.StringVar(&pay.Fee, "payout-fee", "", "the platform's fee per payout")
	fs.StringVar(&pay.AutoApprove, "payout-auto-approve-below", "", "payouts below this are approved without review (0: never)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("merchant terms: want APPID\nusage: gateway merchant terms %s", termsSynopsis)
	}
	change := setFlags(fs, "by", "json", "redis-url", "redis-cluster")
	payChange := change["payout-currency"] || change["payout-min"] || change["payout-fee"] || change["payout-auto-approve-below"]
	for _, n := range []string{"payout-currency", "payout-min", "payout-fee", "payout-auto-approve-below"} {
		delete(change, n)
	}
	if payChange && pay.Currency == "" {
		return fmt.Errorf("merchant terms: --payout-min, --payout-fee and --payout-auto-approve-below need --payout-currency")
	}
	if *instant && (change["delay-days"] || change["cutoff-hour"] || change["tz"]) {
		return fmt.Errorf("merchant terms: --instant or --delay-days/--cutoff-hour/--tz, not both")
	}
	actor, err := cliAuditActor(*by, given(fs, "by"))
	if err != nil && (len(change) > 0 || payChange) {
		return fmt.Errorf("merchant terms: %w", err)
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
	cur, err := m.Terms(ctx, actor, pos[0])
	if err != nil {
		return err
	}
	if payChange {
		pay.AppID = pos[0]
		a, err := m.SetPayoutTerms(ctx, actor, mergePayout(cur, pay, given(fs, "payout-min"), given(fs, "payout-fee"), given(fs, "payout-auto-approve-below")))
		if err != nil {
			return err
		}
		cur = a.Terms
	}
	if len(change) > 0 {
		next := mergeTerms(cur, t, *instant, change)
		if _, err := m.SetTerms(ctx, actor, pos[0], next); err != nil {
			return err
		}
		cur = next
	}
	out := output{w: stdout, json: *asJSON}
	if out.json {
		return out.value(cur)
	}
	_, err = fmt.Fprintf(stdout, "appid: %s\nterms: %s\n", pos[0], operator.TermsText(cur))
	return err
}

// setFlags are the flags given on the command line, but those named.
func setFlags(fs *flag.FlagSet, but ...string) map[string]bool {
	out := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { out[f.Name] = true })
	for _, n := range but {
		delete(out, n)
	}
	return out
}

// mergeTerms is cur with the flags given applied: a delay, cut-off or zone
// ends instant settlement; --instant starts it.
func mergeTerms(cur, t merchant.Terms, instant bool, change map[string]bool) merchant.Terms {
	if change["instant"] {
		cur.Instant = instant
	}
	if change["delay-days"] || change["cutoff-hour"] || change["tz"] {
		cur.Instant = false
	}
	for name, apply := range map[string]func(){
		"delay-days": func() { cur.DelayDays = t.DelayDays }, "cutoff-hour": func() { cur.CutoffHour = t.CutoffHour },
		"tz": func() { cur.TimeZone = t.TimeZone }, "reserve-bps": func() { cur.ReserveBps = t.ReserveBps },
		"reserve-days": func() { cur.ReserveDays = t.ReserveDays }, "refund-returns-fee": func() { cur.RefundReturnsFee = t.RefundReturnsFee },
		"allow-negative": func() { cur.AllowNegative = t.AllowNegative },
	} {
		if change[name] {
			apply()
		}
	}
	return cur
}

// mergePayout is in with the currency's current payout terms where a flag
// was not given.
func mergePayout(cur merchant.Terms, in operator.PayoutTermsInput, minSet, feeSet, autoSet bool) operator.PayoutTermsInput {
	in.Currency = strings.ToUpper(in.Currency)
	p := cur.PayoutsFor(in.Currency)
	if !minSet {
		in.Min = p.Min.String()
	}
	if !feeSet {
		in.Fee = p.Fee.String()
	}
	if !autoSet {
		in.AutoApprove = p.AutoApproveBelow.String()
	}
	return in
}
