package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/fx"
	"github.com/paygate/gateway/operator"
)

const fxUsage = `usage: gateway fx <subcommand> [--json] [--redis-url URL]

  set BASE QUOTE RATE [--by NAME] [--force]
                        one BASE costs RATE QUOTE from now on, e.g.
                        fx set USD BDT 121.50; every process uses it within
                        a second; orders already initialised keep theirs;
                        recorded as set by NAME, else by the OS user; a rate
                        more than GATEWAY_FX_MAX_DEVIATION (10%) from the
                        current one needs --force
  list [--history N]    the current rates, and the last N rates set
`

// fxSynopsis is each fx subcommand's arguments, for its own --help.
var fxSynopsis = map[string]string{"set": "BASE QUOTE RATE [--by NAME] [--force] [--json]", "list": "[--history N] [--json]"}

// fxCmd sets and lists the FX rates in Redis.
func fxCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	sub, fs, err := subcommand("fx", fxUsage, fxSynopsis, args, stdout, stderr)
	if err != nil {
		return err
	}
	redisFlag := bindRedis(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	var history *int64
	var by *string
	var force *bool
	if sub == "list" {
		history = fs.Int64("history", 20, "how many past rates to show")
	} else {
		by = fs.String("by", "", "who sets the rate, recorded with it (default: the OS user)")
		force = fs.Bool("force", false, "set a rate further from the current one than GATEWAY_FX_MAX_DEVIATION (default 10%) allows; flagged in the audit log")
	}
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if err := fxArgs(sub, pos); err != nil {
		return err
	}
	var actor access.Actor
	if sub == "set" {
		if actor, err = cliAuditActor(*by, given(fs, "by")); err != nil {
			return fmt.Errorf("fx set: %w", err)
		}
	}
	rdb, err := redisFlag.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	st, out := fx.NewStore(rdb), output{w: stdout, json: *asJSON}
	switch sub {
	case "set":
		settings, err := cliSettings(rdb)
		if err != nil {
			return err
		}
		e, err := settings.SetRate(ctx, actor, pos[0], pos[1], pos[2], *force)
		var de *fx.DeviationError
		if errors.As(err, &de) {
			return fmt.Errorf("fx set: %s: check it, and give --force if you mean it (GATEWAY_FX_MAX_DEVIATION)", de)
		}
		if err != nil {
			return fmt.Errorf("fx set: %w", err)
		}
		if out.json {
			return out.value(e)
		}
		printRates(stdout, "SET", "FX rates", []fx.Entry{e})
		return nil
	case "list":
		_, cur, err := st.Current(ctx)
		if err != nil {
			return err
		}
		hist, err := st.History(ctx, *history)
		if err != nil {
			return err
		}
		if out.json {
			return out.value(map[string]any{"current": nonNil(cur), "history": nonNil(hist)})
		}
		printRates(stdout, "CURRENT", "FX rates", cur)
		fmt.Fprintln(stdout)
		printRates(stdout, "HISTORY (newest first)", "FX rate changes", hist)
		return nil
	}
	return fmt.Errorf("fx: unknown subcommand %q", sub)
}

// fxArgs checks a subcommand's arguments before it connects: set's
// count, pair and rate (a rate of "-5" is refused as not positive), list's
// none.
func fxArgs(sub string, pos []string) error {
	switch {
	case sub == "set" && len(pos) != 3:
		return fmt.Errorf("fx set: want BASE QUOTE RATE, got %d argument(s)\n%s", len(pos), fxUsage)
	case sub == "set":
		if _, _, err := operator.ParseRate(pos[0], pos[1], pos[2]); err != nil {
			return fmt.Errorf("fx set: %w", err)
		}
	case len(pos) != 0:
		return fmt.Errorf("fx %s: takes no arguments, got %q\n%s", sub, pos, fxUsage)
	}
	return nil
}

func printRates(w io.Writer, title, things string, es []fx.Entry) {
	fmt.Fprintln(w, title)
	if len(es) == 0 {
		_ = noRows(w, things, "gateway fx set BASE QUOTE RATE")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PAIR\tRATE\tSET AT\tBY")
	for _, e := range es {
		fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\n", e.Base, e.Quot, e.Rate, e.At.Format("2006-01-02T15:04:05Z"), e.By)
	}
	_ = tw.Flush()
}
