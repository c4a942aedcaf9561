// Command gateway is the payment gateway: `gateway serve` runs its roles,
// `gateway merchant ...` manages merchant accounts.
package main

import (
	"context"
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
             set-callback, rotate-key, credit, limits, set-password
  webhook    webhook deliveries: log PAYMENTID, resend PAYMENTID
  order      show PAYMENTID: the order, its events, provider notifications
             and webhook attempts
  fx         currency rates: set BASE QUOTE RATE, list
  usdt       USDT networks (config set, show, remove) and the review desk
             (reviews, approve PAYMENTID, reject PAYMENTID)
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

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("no command given")
	}
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
	case "usdt":
		return usdtCmd(ctx, args[1:], stdout, stderr)
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
	opts := &slog.HandlerOptions{Level: lv}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
