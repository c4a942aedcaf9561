// Command gateway is the payment gateway: `gateway serve` runs its roles,
// `gateway merchant ...` manages merchant accounts.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"
)

const usage = `usage: gateway <command> [flags]

commands:
  serve      run the gateway roles (GATEWAY_ROLES, default all)
  migrate    apply the ClickHouse migrations (GATEWAY_CLICKHOUSE_DSN)
  merchant   manage merchant accounts: create, list, show, disable, enable,
             set-callback, rotate-key, rotate-query-key, credit, limits,
             method-limits, set-password, terms, group APPID GROUP|-
  webhook    webhook deliveries: log PAYMENTID, resend PAYMENTID; endpoint
             add|list|show|update|rotate|remove|test|replay|deliveries APPID
  order      show PAYMENTID: the order, its events, provider notifications
             and webhook attempts
  fx         currency rates: set BASE QUOTE RATE, list
  fees       operator fee schedules: list, set --method M --currency C
             [--merchant APPID] --bps N ..., clear
  demo       seed: the sandbox demo merchant, payer, FX rates and balances
             make run prints; receiver: a webhook endpoint on loopback that
             prints each webhook and whether its signatures verify
  usdt       USDT networks (config set, show, remove) and the review desk
             (reviews, approve PAYMENTID, reject PAYMENTID)
  console-user  merchant console users: add APPID EMAIL --role ROLE (prints
             a one-time setup link), list APPID, unlock APPID EMAIL
  exceptions payments that need a person: list, handle KIND ID --note,
             resend ID
  operator   operator console accounts: add EMAIL --role ROLE (prints a
             setup link), list, reissue, disable, enable, unlock
  ledger     the journal and a merchant's money: verify (exits non-zero on a
             problem), settle, balances APPID, journal APPID, adjust APPID --amount
             ±X --currency C --reason R, adjustments, approve ID, reject ID,
             income --from DAY --to DAY, migrate (balances of before the journal
             into it, once)
  sandbox    fault METHOD CHANNEL restricted|hang|reset|off: switch a sandbox
             simulator to fail as a provider account does
  channel    provider accounts per method: list, show REF, set REF --weight ..,
             enable, disable, maintenance REF on|off, mode, pin, keywords,
             breaker open|close REF --reason R
  payout     merchants' payouts: list [--appid APPID], show ID, approve ID,
             reject ID --reason R, paid ID --reference REF | --file CSV
  reconcile  --channel REF --date DAY FILE: import a provider's settlement
             statement; differences go to the exceptions queue
  help       show this text

Run "gateway <command> -h" for its flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gateway:", err)
		os.Exit(1)
	}
}

// runFunc runs one command with the arguments after its name.
type runFunc func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error

// cliCommand is one command of the usage text above: its own usage, printed
// by "gateway COMMAND --help" on standard output (serve and migrate print
// their flags instead), how it runs, and the argument lists of its
// subcommands that list things: each prints a table, or JSON with --json,
// and an empty list says "no <things>" (TestCommandTable walks them).
type cliCommand struct {
	name  string
	usage string
	run   runFunc
	lists [][]string
}

// noStdin adapts a command that reads nothing from standard input.
func noStdin(f func(context.Context, []string, io.Writer, io.Writer) error) runFunc {
	return func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
		return f(ctx, args, stdout, stderr)
	}
}

// commands is every command dispatch knows; usage lists each.
var commands = []cliCommand{
	{name: "serve", run: func(ctx context.Context, args []string, _ io.Reader, _, stderr io.Writer) error {
		return serve(ctx, args, stderr)
	}},
	{name: "migrate", run: noStdin(migrate)},
	{name: "merchant", usage: merchantUsage, run: merchantCmd, lists: [][]string{{"list"}}},
	{name: "webhook", usage: webhookUsage, run: noStdin(webhookCmd), lists: [][]string{{"endpoint", "list", "APPID"}}},
	{name: "order", usage: orderUsage, run: noStdin(orderCmd)},
	{name: "fx", usage: fxUsage, run: noStdin(fxCmd), lists: [][]string{{"list"}}},
	{name: "fees", usage: feesUsage, run: noStdin(feesCmd), lists: [][]string{{"list"}}},
	{name: "demo", usage: demoUsage, run: noStdin(demoCmd)},
	{name: "usdt", usage: usdtUsage, run: noStdin(usdtCmd), lists: [][]string{{"reviews"}, {"config", "show"}}},
	{name: "console-user", usage: consoleUserUsage, run: noStdin(consoleUserCmd), lists: [][]string{{"list", "APPID"}}},
	{name: "exceptions", usage: exceptionsUsage, run: noStdin(exceptionsCmd), lists: [][]string{{"list"}}},
	{name: "operator", usage: operatorUsage, run: noStdin(operatorCmd), lists: [][]string{{"list"}}},
	{name: "ledger", usage: ledgerUsage, run: noStdin(ledgerCmd), lists: [][]string{{"adjustments"}, {"journal", "APPID"},
		{"balances", "APPID"}, {"income", "--from", "2026-01-01", "--to", "2026-01-02"}}},
	{name: "sandbox", usage: sandboxUsage, run: noStdin(sandboxCmd)},
	{name: "channel", usage: channelUsage, run: noStdin(channelCmd), lists: [][]string{{"list"}}},
	{name: "payout", usage: payoutUsage, run: payoutCmd, lists: [][]string{{"list"}, {"list", "--appid", "APPID"}}},
	{name: "reconcile", usage: reconcileUsage, run: noStdin(reconcileCmd)},
}

// lookup is the command named name.
func lookup(name string) (cliCommand, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return cliCommand{}, false
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "help" || arg == "-help"
}

// run runs one command. Asking for help is not an error: it exits 0.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("no command given")
	}
	if c, ok := lookup(args[0]); ok && c.usage != "" && len(args) > 1 && isHelp(args[1]) {
		fmt.Fprint(stdout, c.usage)
		return nil
	}
	if err := dispatch(ctx, args, stdin, stdout, stderr); !errors.Is(err, flag.ErrHelp) {
		return err
	}
	return nil
}

func dispatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if c, ok := lookup(args[0]); ok {
		return c.run(ctx, args[1:], stdin, stdout, stderr)
	}
	if isHelp(args[0]) {
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

// newLogger writes JSON unless a person is watching the terminal.
func newLogger(w io.Writer, level string) *slog.Logger {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		lv = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: lv, ReplaceAttr: humanDurations}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// humanDurations prints every time.Duration attribute as people read it
// ("1.5s"), where the JSON handler would write nanoseconds.
func humanDurations(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.String(a.Key, a.Value.Duration().String())
	}
	return a
}
