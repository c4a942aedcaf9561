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
  webhook    webhook deliveries: log PAYMENTID, resend PAYMENTID
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

// subUsage is each command's usage text, printed on standard output by
// "gateway COMMAND --help" (serve and migrate print their flags instead).
var subUsage = map[string]string{"merchant": merchantUsage, "webhook": webhookUsage, "order": orderUsage,
	"fx": fxUsage, "fees": feesUsage, "usdt": usdtUsage, "demo": demoUsage, "console-user": consoleUserUsage,
	"operator": operatorUsage, "exceptions": exceptionsUsage, "ledger": ledgerUsage,
	"sandbox": sandboxUsage, "channel": channelUsage}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "help" || arg == "-help"
}

// run runs one command. Asking for help is not an error: it exits 0.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("no command given")
	}
	if text, ok := subUsage[args[0]]; ok && len(args) > 1 && isHelp(args[1]) {
		fmt.Fprint(stdout, text)
		return nil
	}
	if err := dispatch(ctx, args, stdin, stdout, stderr); !errors.Is(err, flag.ErrHelp) {
		return err
	}
	return nil
}

func dispatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], stderr)
	case "merchant":
		return merchantCmd(ctx, args[1:], stdin, stdout, stderr)
	case "migrate":
		return migrate(ctx, args[1:], stdout, stderr)
	case "webhook":
		return webhookCmd(ctx, args[1:], stdout, stderr)
	case "order":
		return orderCmd(ctx, args[1:], stdout, stderr)
	case "fx":
		return fxCmd(ctx, args[1:], stdout, stderr)
	case "fees":
		return feesCmd(ctx, args[1:], stdout, stderr)
	case "usdt":
		return usdtCmd(ctx, args[1:], stdout, stderr)
	case "demo":
		return demoCmd(ctx, args[1:], stdout, stderr)
	case "console-user":
		return consoleUserCmd(ctx, args[1:], stdout, stderr)
	case "exceptions":
		return exceptionsCmd(ctx, args[1:], stdout, stderr)
	case "operator":
		return operatorCmd(ctx, args[1:], stdout, stderr)
	case "ledger":
		return ledgerCmd(ctx, args[1:], stdout, stderr)
	case "sandbox":
		return sandboxCmd(ctx, args[1:], stdout, stderr)
	case "channel":
		return channelCmd(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
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
