package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
)

const exceptionsUsage = `usage: gateway exceptions <subcommand> [--json] [--redis-url URL]

  list [--kind KIND] [--handled]
                      payments that need a person, newest first: mismatch,
                      notification_refused, webhook_dead, refund_stuck,
                      usdt_backend, reconciliation, endpoint_disabled (the
                      operator console's Exceptions page)
  handle KIND ID --note TEXT [--by NAME]
                      mark one handled; it shows again if it happens again
  resend ID [--by NAME]
                      one more attempt of a dead webhook (ID as listed)
  refund ID [--by NAME]
                      give a mismatch's unmatched charge back through the
                      order's provider: the amount the provider reported, under
                      a refund id derived from the exception (asking again
                      never refunds twice); reads the providers' configuration
                      and GATEWAY_PUBLIC_URL as serve does
Changes are in the audit log as the CLI's, by NAME (default: the OS user).
`

var exceptionsSynopsis = map[string]string{"list": "[--kind KIND] [--handled] [--json]",
	"handle": "KIND ID --note TEXT [--by NAME] [--json]", "resend": "ID [--by NAME]",
	"refund": "ID [--by NAME] [--json]"}

// exceptionsCmd is the exceptions queue from the command line.
func exceptionsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	sub, fs, err := subcommand("exceptions", exceptionsUsage, exceptionsSynopsis, args, stdout, stderr)
	if err != nil {
		return err
	}
	redisFlag := bindRedis(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	kind := fs.String("kind", "", "list: only this kind")
	handled := fs.Bool("handled", false, "list: handled ones too")
	note := fs.String("note", "", "handle: what was done")
	by := fs.String("by", "", "handle, resend, refund: who, recorded in the audit log (default: the OS user)")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != map[string]int{"list": 0, "handle": 2, "resend": 1, "refund": 1}[sub] {
		return fmt.Errorf("exceptions %s: want %s\n%s", sub, exceptionsSynopsis[sub], exceptionsUsage)
	}
	actor, err := cliAuditActor(*by, given(fs, "by"))
	if err != nil && sub != "list" {
		return fmt.Errorf("exceptions %s: %w", sub, err)
	}
	rdb, err := redisFlag.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	x, err := cliExceptions(rdb)
	if err != nil {
		return err
	}
	out := output{w: stdout, json: *asJSON}
	switch sub {
	case "handle":
		e, err := x.Handle(ctx, actor, pos[0], pos[1], *note)
		if err != nil {
			return fmt.Errorf("exceptions handle: %w", err)
		}
		return out.value(e)
	case "resend":
		if err := x.Resend(ctx, actor, pos[0]); err != nil {
			return fmt.Errorf("exceptions resend: %w", err)
		}
		return out.value(map[string]string{"id": pos[0], "resend": "queued"})
	case "refund":
		adapters, err := cliProviders(rdb, stderr, true)
		if err != nil {
			return fmt.Errorf("exceptions refund: %w", err)
		}
		e, err := x.WithRefunds(adapters).Refund(ctx, actor, pos[0])
		if err != nil {
			return fmt.Errorf("exceptions refund: %w", err)
		}
		return out.value(e)
	}
	// The list offers a provider refund where the family has one; without
	// a readable configuration it offers none.
	if adapters, err := cliProviders(rdb, io.Discard, false); err == nil {
		x.WithRefunds(adapters)
	}
	list, err := x.List(ctx, actor, operator.ExceptionFilter{Kind: *kind, Handled: *handled})
	if err != nil || out.json {
		return errors.Join(err, out.value(nonNil(list)))
	}
	printExceptions(stdout, list)
	return nil
}

// cliExceptions is the queue as the console has it, over rdb.
func cliExceptions(rdb redis.UniversalClient) (*operator.Exceptions, error) {
	store, _, err := cliOrderStore(rdb)
	if err != nil {
		return nil, err
	}
	logs := audit.NewLog(rdb)
	return operator.NewExceptions(operator.ExceptionsConfig{}, rdb, store, command.NewUSDTBacklog(store),
		dispatcher.NewWebhooks(rdb), logs)
}

// cliProviders are the adapters serve wires, from the same configuration
// (the providers' file and variables, GATEWAY_PUBLIC_URL for the sandbox's
// simulators, required when call), their call metrics kept nowhere.
func cliProviders(rdb redis.UniversalClient, stderr io.Writer, call bool) (*provider.Registry, error) {
	cfg := platform.Defaults()
	if err := parseConfig(&cfg, "exceptions refund", nil, stderr); err != nil {
		return nil, err
	}
	switch {
	case cfg.PublicURL == "" && call:
		return nil, errors.New("GATEWAY_PUBLIC_URL is required, as the serving gateway has it: sandbox providers are reached under it")
	case cfg.PublicURL == "":
		// Only asked which families refund: no adapter is called.
		cfg.PublicURL = "http://127.0.0.1"
	}
	pm, err := provider.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		return nil, err
	}
	set, err := wireProviders(cfg, rdb, pm, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		return nil, err
	}
	return set.registry, nil
}

func printExceptions(w io.Writer, list []operator.Exception) {
	if len(list) == 0 {
		_ = noRows(w, "exceptions", "nothing needs a person")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WHEN\tKIND\tID\tORDER\tAPPID\tDETAIL\tACTIONS")
	for _, e := range list {
		detail := e.Detail
		if e.Handled != nil {
			detail += " [handled by " + e.Handled.By + ": " + e.Handled.Note + "]"
		}
		if a := e.Attempt; a != nil {
			detail += " [refund by " + a.By + " not answered at " + a.At.Format("15:04:05Z") + ": refund again]"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.At.Format("2006-01-02T15:04:05Z"), e.Kind, e.ID, e.OrderID, e.AppID,
			oneLine(detail, 80), strings.Join(e.Actions, ","))
	}
	_ = tw.Flush()
}
