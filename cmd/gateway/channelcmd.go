package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
)

const channelUsage = `usage: gateway channel <subcommand> [--json] [--redis-url URL] [--by NAME]

A channel is one provider account of a method, named [sandbox.]<method>.<id>
(wallet_a.default, sandbox.wallet_a.alt). Its credentials come from the
providers file; its routing data, changed here, from Redis. Every process
routes by a change within a second; every change is an audit entry.

  list                  every method's channels (live, then sandbox): state
                        and why, enabled/maintenance, weight, priority,
                        caps and today's use, success rate; "not
                        configured" marks a channel with routing data but
                        no credentials in this machine's providers
  show REF              one channel in full
  set REF [--weight N] [--priority N] [--min A] [--max A]
      [--daily-amount A] [--daily-count N] [--tz ZONE] [--active HH:MM-HH:MM]
      [--merchants A,B | --group G | --all] [--cost BPS:FIXED]
                        change the flags given; the others keep their value
                        (0 or "" clears a bound, --all serves everyone)
  enable REF | disable REF
  maintenance REF on|off
  mode [sandbox.]METHOD priority|weighted|round_robin
  pin APPID [sandbox.]METHOD ID,ID,..|-
                        the merchant's orders of METHOD use only these
                        channels ("-": any again)
  keywords [WORD ...]   the provider messages that open a breaker at once
                        (none: the list is cleared)
  breaker open|close REF --reason TEXT
                        open (until closed by hand) or close a breaker
`

var channelSynopsis = map[string]string{
	"list": "[--json]", "show": "REF [--json]", "set": "REF [flags] [--by NAME]", "enable": "REF [--by NAME]",
	"disable": "REF [--by NAME]", "maintenance": "REF on|off [--by NAME]", "mode": "[sandbox.]METHOD MODE [--by NAME]",
	"pin": "APPID [sandbox.]METHOD IDS|- [--by NAME]", "keywords": "[WORD ...] [--by NAME]",
	"breaker": "open|close REF --reason TEXT [--by NAME]",
}

// channelArity is each subcommand's count of arguments (-1: any).
var channelArity = map[string]int{"list": 0, "show": 1, "set": 1, "enable": 1, "disable": 1, "maintenance": 2,
	"mode": 2, "pin": 3, "keywords": -1, "breaker": 2}

// channelCmd reads and changes the channels' routing data through the
// console's use case (operator.Channels), each change audited as the CLI's.
func channelCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	sub, fs, err := subcommand("channel", channelUsage, channelSynopsis, args, stdout, stderr)
	if err != nil {
		return err
	}
	synopsis := channelSynopsis[sub]
	redisFlag := bindRedis(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	by := fs.String("by", "", "who makes the change, recorded in the audit log (default: the OS user)")
	var reason string
	if sub == "breaker" {
		fs.StringVar(&reason, "reason", "", "why it is opened or closed, recorded with it")
	}
	var sf settingsFlags
	if sub == "set" {
		sf.bind(fs)
	}
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if n := channelArity[sub]; n >= 0 && len(pos) != n {
		return fmt.Errorf("channel %s: want %s\n%s", sub, synopsis, channelUsage)
	}
	actor, err := cliAuditActor(*by, given(fs, "by"))
	if err != nil && sub != "list" && sub != "show" {
		return fmt.Errorf("channel %s: %w", sub, err)
	}
	cmd, err := channelChange(sub, pos, &sf, fs, reason)
	if err != nil {
		return err
	}
	rdb, err := redisFlag.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	uc := operator.NewChannels(rdb, cliConfigured(rdb), merchant.NewStore(rdb))
	out := output{w: stdout, json: *asJSON}
	if err := cmd(ctx, uc, actor, out); err != nil {
		return fmt.Errorf("channel %s: %w", sub, err)
	}
	return nil
}

type channelRun func(ctx context.Context, uc *operator.Channels, actor access.Actor, out output) error

// channelChange checks a subcommand's arguments before anything connects
// and gives what it runs.
func channelChange(sub string, pos []string, sf *settingsFlags, fs *flag.FlagSet, reason string) (channelRun, error) {
	switch sub {
	case "list":
		return func(ctx context.Context, uc *operator.Channels, a access.Actor, out output) error {
			v, err := uc.List(ctx, a)
			if err != nil {
				return err
			}
			return printChannels(out, v)
		}, nil
	case "mode":
		sandbox, m, err := operator.ParseMethod(pos[0])
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, uc *operator.Channels, a access.Actor, out output) error {
			return done(out, uc.SetMode(ctx, a, sandbox, m, channel.Mode(pos[1])))
		}, nil
	case "pin":
		sandbox, m, err := operator.ParseMethod(pos[1])
		if err != nil {
			return nil, err
		}
		var ids []string
		if pos[2] != "-" {
			ids = strings.Split(pos[2], ",")
		}
		return func(ctx context.Context, uc *operator.Channels, a access.Actor, out output) error {
			return done(out, uc.SetPin(ctx, a, pos[0], sandbox, m, ids))
		}, nil
	case "keywords":
		return func(ctx context.Context, uc *operator.Channels, a access.Actor, out output) error {
			return done(out, uc.SetKeywords(ctx, a, pos))
		}, nil
	case "breaker":
		return breakerChange(pos, reason)
	}
	ref, err := channel.ParseRef(pos[0])
	if err != nil {
		return nil, err
	}
	switch sub {
	case "show":
		return func(ctx context.Context, uc *operator.Channels, a access.Actor, out output) error {
			cv, err := uc.Show(ctx, a, ref)
			if err != nil {
				return err
			}
			return out.value(channelRowOf("", cv))
		}, nil
	case "set":
		edit, err := sf.edit(fs)
		if err != nil {
			return nil, err
		}
		return editRun(ref, "channel.set", edit), nil
	case "enable", "disable":
		off := sub == "disable"
		return editRun(ref, "channel."+sub, func(s *channel.Settings) error { s.Disabled = off; return nil }), nil
	}
	// maintenance
	on, ok := map[string]bool{"on": true, "off": false}[pos[1]]
	if !ok {
		return nil, fmt.Errorf("maintenance: on or off, got %q", pos[1])
	}
	return editRun(ref, "channel.maintenance", func(s *channel.Settings) error { s.Maintenance = on; return nil }), nil
}

func breakerChange(pos []string, reason string) (channelRun, error) {
	state, ok := map[string]channel.BreakerState{"open": channel.Open, "close": channel.Closed}[pos[0]]
	if !ok {
		return nil, fmt.Errorf("breaker: open or close, got %q", pos[0])
	}
	ref, err := channel.ParseRef(pos[1])
	if err != nil {
		return nil, err
	}
	if reason == "" {
		return nil, errors.New("breaker: give --reason (it is recorded with the change)")
	}
	return func(ctx context.Context, uc *operator.Channels, a access.Actor, out output) error {
		return done(out, uc.SetBreaker(ctx, a, ref, state, reason))
	}, nil
}

func editRun(ref channel.Ref, action string, fn func(*channel.Settings) error) channelRun {
	return func(ctx context.Context, uc *operator.Channels, a access.Actor, out output) error {
		if _, err := uc.Edit(ctx, a, ref, action, fn); err != nil {
			return err
		}
		cv, err := uc.Show(ctx, a, ref)
		if err != nil {
			return err
		}
		return out.value(channelRowOf("", cv))
	}
}

func done(out output, err error) error {
	if err != nil {
		return err
	}
	if out.json {
		return out.value(map[string]any{"done": true})
	}
	fmt.Fprintln(out.w, "done")
	return nil
}

// cliConfigured is the channels this machine's providers configuration
// gives, decoded as `gateway serve` decodes it (GATEWAY_PROVIDERS_FILE,
// GATEWAY_PROVIDER_<METHOD>): a channel with routing data but no
// credentials here is listed as not configured. A configuration that does
// not decode lists every channel as not configured (serve would refuse it).
func cliConfigured(rdb redis.UniversalClient) channel.Configured {
	cfg := platform.Defaults()
	cfg.Bind(flag.NewFlagSet("env", flag.ContinueOnError))
	if cfg.PublicURL == "" {
		// The sandbox adapters are built only to be listed, never called.
		cfg.PublicURL = "http://127.0.0.1"
	}
	pm, err := provider.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		return nil
	}
	set, err := wireProviders(cfg, rdb, pm, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil
	}
	return set.registry
}
