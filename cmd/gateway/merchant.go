package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

const merchantUsage = `usage: gateway merchant <subcommand> [--json] [--redis-url URL] ...

  create --name NAME [--callback URL] [--sandbox]
  list
  show APPID                      (with the methods it can use: live, those
                                  whose provider is configured, GATEWAY_PROVIDERS_FILE;
                                  and each method's amount limits, GATEWAY_METHOD_LIMITS)
  disable APPID
  enable APPID
  set-callback APPID URL          (an empty URL clears it)
  set-name APPID NAME             (the display name payers see on the payment pages)
  rotate-key APPID [--grace DURATION]
                                  (for the grace both keys verify requests, and
                                  webhooks stay MD5-signed with the old key until
                                  the grace ends or confirm-webhook-key)
  confirm-webhook-key APPID       (the merchant's receiver has the new API key:
                                  sign webhooks with it before the grace ends)
  rotate-webhook-secret APPID [--grace DURATION]
                                  (a new whsec_ secret for the webhook-signature
                                  header, printed once; for --grace webhooks are
                                  signed with the old secret as well)
  rotate-query-key APPID          (a new query key; the old one stops at once)
  credit APPID --currency CUR --amount AMOUNT [--key ID]   (CUR: CNY or USD, what balance payments take;
                                  a journal top-up: --key makes a retry credit once)
  limits APPID [--create RATE/s[:BURST]] [--query RATE/s[:BURST]] [--report RATE/s[:BURST]]   ("default" removes an override)
  method-limits APPID METHOD [--min AMOUNT] [--max AMOUNT] | --clear
                                  (order amount limits of one method for this merchant;
                                  a side left out is no bound; --clear restores the default)
  terms APPID [--instant | --delay-days N --cutoff-hour H --tz ZONE] [--reserve-bps N --reserve-days D]
        [--refund-returns-fee=true|false] [--allow-negative=true|false]
                                  (print the merchant's money terms, or change those given:
                                  settlement, rolling reserve, refund fee, negative balance)
  group APPID GROUP|-             (the merchant group channels serve by --group;
                                  "-" takes the merchant out of any)
  set-password APPID              (reads the password, 10 to 128 bytes, as one line
                                  from standard input; never from the command line)
`

// merchantCmd runs one account subcommand against Redis.
func merchantCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, merchantUsage)
		return fmt.Errorf("merchant: no subcommand given")
	}
	sub := args[0]
	if sub == "terms" {
		return merchantTermsCmd(ctx, args[1:], stdout, stderr)
	}
	if sub == "group" {
		return merchantGroupCmd(ctx, args[1:], stdout, stderr)
	}
	synopsis, ok := merchantSynopsis[sub]
	if !ok {
		fmt.Fprint(stderr, merchantUsage)
		return fmt.Errorf("merchant: unknown subcommand %q", sub)
	}
	fs := subFlags("merchant", sub, synopsis, args[1:], stdout, stderr)
	redisFlag := bindRedis(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	o := bindMerchantFlags(fs, sub)
	by := fs.String("by", "", "who makes the change, recorded in the audit log (default: the OS user)")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if n := merchantArity[sub]; len(pos) != n {
		return fmt.Errorf("merchant %s: want %s, got %d argument(s)\n%s", sub, argsWord(n, synopsis), len(pos), merchantUsage)
	}
	actor, err := cliAuditActor(*by, given(fs, "by"))
	if err != nil && sub != "list" && sub != "show" {
		return fmt.Errorf("merchant %s: %w", sub, err)
	}
	in, err := merchantInput(sub, stdin, o)
	if err != nil {
		return err
	}
	dest, err := envDestinations()
	if err != nil {
		return err
	}
	rdb, err := redisFlag.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	out := output{w: stdout, json: *asJSON}
	st := merchant.NewStore(rdb)
	jr, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		return err
	}
	ms := operator.NewMerchants(st, audit.NewLog(rdb), dest).WithJournal(jr)
	switch sub {
	case "create":
		a, err := ms.Create(ctx, actor, merchant.NewAccount{Name: o.name, Callback: o.callback, Sandbox: o.sandbox})
		if err != nil {
			return err
		}
		return out.withWebhookSecret(a, allCredentials)
	case "rotate-webhook-secret":
		a, err := ms.RotateWebhookSecret(ctx, actor, pos[0], o.grace)
		if err != nil {
			return err
		}
		return out.withWebhookSecret(a, noCredentials)
	case "list":
		all, err := st.List(ctx)
		if err != nil {
			return err
		}
		return out.list(all)
	case "show", "disable", "enable", "set-callback", "set-name", "rotate-key", "rotate-query-key", "confirm-webhook-key":
		a, err := accountChange(ctx, ms, st, actor, sub, pos, o)
		if err != nil {
			return err
		}
		if sub == "show" {
			return showAccount(ctx, out, st, a, allCredentials)
		}
		return out.account(a, credentials{apiKey: sub == "rotate-key", queryKey: sub == "rotate-query-key"})
	case "method-limits":
		a, err := setMethodLimits(ctx, ms, actor, pos, o.min, o.max, o.clear)
		if err != nil {
			return err
		}
		return showAccount(ctx, out, st, a, noCredentials)
	case "limits":
		a, err := ms.SetLimits(ctx, actor, pos[0], merchant.LimitOverrides{Create: o.create, Query: o.query, Report: o.report})
		if err != nil {
			return err
		}
		return out.account(a, noCredentials)
	case "set-password":
		if err := ms.SetPassword(ctx, actor, pos[0], in.password); err != nil {
			return err
		}
		return out.value(map[string]string{"appid": pos[0], "password": "set"})
	case "credit":
		bal, err := ms.Credit(ctx, actor, pos[0], strings.ToUpper(o.currency), in.amount, o.key)
		if err != nil {
			return err
		}
		return out.value(map[string]string{"appid": pos[0], "currency": strings.ToUpper(o.currency), "credited": in.amount.String(), "balance": bal.String()})
	}
	return fmt.Errorf("merchant: unknown subcommand %q", sub)
}

// merchantSynopsis is each subcommand's arguments, for its own --help.
var merchantSynopsis = map[string]string{
	"create": "--name NAME [--callback URL] [--sandbox]", "list": "", "show": "APPID", "disable": "APPID", "enable": "APPID",
	"set-callback": "APPID URL", "set-name": "APPID NAME", "rotate-key": "APPID [--grace DURATION]", "rotate-webhook-secret": "APPID [--grace DURATION]",
	"rotate-query-key": "APPID", "confirm-webhook-key": "APPID", "credit": "APPID --currency CUR --amount AMOUNT [--key ID]",
	"limits":        "APPID [--create RATE/s[:BURST]] [--query RATE/s[:BURST]]",
	"method-limits": "APPID METHOD [--min AMOUNT] [--max AMOUNT] | --clear", "set-password": "APPID < password-file",
}

// merchantArity is each subcommand's count of positional arguments,
// checked before anything is connected to.
var merchantArity = map[string]int{"create": 0, "list": 0, "show": 1, "disable": 1, "enable": 1, "set-callback": 2, "set-name": 2,
	"rotate-key": 1, "rotate-webhook-secret": 1, "rotate-query-key": 1, "confirm-webhook-key": 1, "credit": 1, "limits": 1, "method-limits": 2, "set-password": 1}

// argsWord is what a subcommand wants, for its usage error: its synopsis's
// arguments, or "no arguments".
func argsWord(n int, synopsis string) string {
	if n == 0 {
		return "no arguments"
	}
	return strings.Join(strings.Fields(synopsis)[:n], " ")
}

// merchantInputs are what a subcommand reads besides its arguments, read
// and checked before it connects: set-password's password from standard
// input, credit's amount.
type merchantInputs struct {
	password string
	amount   schema.Amount
}

func merchantInput(sub string, stdin io.Reader, o *merchantFlags) (merchantInputs, error) {
	var in merchantInputs
	var err error
	switch sub {
	case "set-password":
		in.password, err = readPassword(stdin)
	case "credit":
		if in.amount, err = schema.ParseAmount(o.amount); err != nil {
			err = fmt.Errorf("merchant credit: amount: %w", err)
		}
	}
	return in, err
}

// merchantFlags are the flags of the merchant subcommands; each binds only
// its own.
type merchantFlags struct {
	name, callback                  string
	sandbox, clear                  bool
	grace                           time.Duration
	currency, amount, reason, key   string
	create, query, report, min, max string
}

func bindMerchantFlags(fs *flag.FlagSet, sub string) *merchantFlags {
	o := &merchantFlags{}
	switch sub {
	case "create":
		fs.StringVar(&o.name, "name", "", "merchant name, shown to payers")
		fs.StringVar(&o.callback, "callback", "", "default webhook URL")
		fs.BoolVar(&o.sandbox, "sandbox", false, "a sandbox account: its orders go to the simulated providers")
	case "disable", "enable":
		fs.StringVar(&o.reason, "reason", "", "why, recorded in the audit log")
	case "rotate-key":
		fs.DurationVar(&o.grace, "grace", 0, "how long the old API key keeps verifying")
	case "rotate-webhook-secret":
		fs.DurationVar(&o.grace, "grace", 0, "how long webhooks are signed with the old secret too")
	case "credit":
		fs.StringVar(&o.currency, "currency", "", "CNY or USD")
		fs.StringVar(&o.amount, "amount", "", "amount, e.g. 100.00")
		fs.StringVar(&o.key, "key", "", "a top-up id: the same key credits once, so a retry is safe (default: a fresh one)")
	case "limits":
		fs.StringVar(&o.create, "create", "", `createorder rate limit, e.g. 500/s:1000 ("default" removes the override)`)
		fs.StringVar(&o.query, "query", "", `order query rate limit: action=order, webhooks and the sandbox driver ("default" removes the override)`)
		fs.StringVar(&o.report, "report", "", `read-side query rate limit: action=orders, summary, timeseries and export ("default" removes the override)`)
	case "method-limits":
		fs.StringVar(&o.min, "min", "", "smallest order amount, e.g. 1.00")
		fs.StringVar(&o.max, "max", "", "largest order amount, e.g. 500.00")
		fs.BoolVar(&o.clear, "clear", false, "remove the merchant's limits of the method")
	}
	return o
}

// readPassword reads one line: a password on the command line would sit in
// the shell history and in every process listing.
func readPassword(r io.Reader) (string, error) {
	line, err := bufio.NewReader(io.LimitReader(r, merchant.MaxPasswordLen+3)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read the password from standard input: %w", err)
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if line == "" {
		return "", errors.New("set-password: give the password as one line on standard input")
	}
	return line, nil
}

func accountChange(ctx context.Context, ms *operator.Merchants, st *merchant.Store, actor access.Actor, sub string, pos []string, o *merchantFlags) (*merchant.Account, error) {
	switch sub {
	case "disable", "enable":
		return ms.SetDisabled(ctx, actor, pos[0], sub == "disable", o.reason)
	case "set-callback":
		return ms.SetCallback(ctx, actor, pos[0], pos[1])
	case "set-name":
		return ms.SetName(ctx, actor, pos[0], pos[1])
	case "rotate-key":
		return ms.RotateKey(ctx, actor, pos[0], o.grace)
	case "rotate-query-key":
		return ms.RotateQueryKey(ctx, actor, pos[0])
	case "confirm-webhook-key":
		return ms.ConfirmWebhookKey(ctx, actor, pos[0])
	}
	return st.Get(ctx, pos[0])
}

// parseInterleaved lets flags come before or after the positional
// arguments ("show 1001 --json"), as operators type them. A negative number
// ("fx set USD BDT -5") is an argument, never a flag (no flag's name starts
// with a digit): the use case then refuses it for what it is; after "--"
// everything is an argument.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case isFlagToken(a):
			flags = append(flags, a)
			if takesValue(fs, a) && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		default:
			pos = append(pos, a)
		}
	}
	if err := fs.Parse(flags); err != nil {
		return nil, err
	}
	return append(pos, fs.Args()...), nil
}

// isFlagToken: "-x", "--x", "--x=v"; not "-", not a negative number.
func isFlagToken(a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	c := strings.TrimLeft(a, "-")
	return c != "" && (c[0] < '0' || c[0] > '9') && c[0] != '.'
}

// takesValue says whether the flag token a is followed by its value (a
// flag of fs, not boolean, without "=value").
func takesValue(fs *flag.FlagSet, a string) bool {
	name := strings.TrimLeft(a, "-")
	if strings.Contains(name, "=") {
		return false
	}
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

// merchantMethods are the methods a merchant can create orders with: our
// own select and balance flows; in the sandbox usdt_direct and every family
// with a simulator; live, the families whose provider is configured.
func merchantMethods(sandbox bool, cfg platform.Config) ([]schema.Method, error) {
	live, err := decodeProviders(cfg.Providers(), cfg.ChannelsMax)
	if err != nil {
		return nil, err
	}
	families := providerFamilies()
	var out []schema.Method
	for _, m := range schema.AllMethods() {
		_, family := families[m]
		_, configured := live[m]
		own := m == schema.MethodSelect || m == schema.MethodBalance || m == schema.MethodUSDTDirect
		if own || (family && (sandbox || configured)) {
			out = append(out, m)
		}
	}
	return out, nil
}
