package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"text/tabwriter"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/admin"
)

const operatorUsage = `usage: gateway operator <subcommand> [--json] [--redis-url URL]

  add EMAIL --role admin|support|auditor [--url BASE] [--by NAME]
                      an operator account of the console on GATEWAY_ADMIN_ADDR;
                      prints its one-time setup link (72 h): the person sets a
                      password and enrols TOTP, which operators always need
  list                every operator account
  reissue EMAIL [--url BASE] [--by NAME]
                      a new setup link (lost link, password or authenticator);
                      the old one stops working
  disable EMAIL [--by NAME]   its sessions end at once
  enable EMAIL [--by NAME]
  unlock EMAIL [--by NAME]    its second factor, locked after too many wrong
                              codes in a row (list shows it as "locked")
Every change is in the audit log, recorded as the CLI's, by NAME (default: the
OS user).
`

// operatorSynopsis is each subcommand's arguments, for its own --help.
var operatorSynopsis = map[string]string{
	"add": "EMAIL --role admin|support|auditor [--url BASE] [--by NAME] [--json]", "list": "[--json]",
	"reissue": "EMAIL [--url BASE] [--by NAME] [--json]", "disable": "EMAIL [--by NAME]", "enable": "EMAIL [--by NAME]",
	"unlock": "EMAIL [--by NAME]",
}

// operatorCmd manages operator accounts (access.RealmOperator).
func operatorCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	sub, fs, err := subcommand("operator", operatorUsage, operatorSynopsis, args, stdout, stderr)
	if err != nil {
		return err
	}
	synopsis := operatorSynopsis[sub]
	redisFlag := bindRedis(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	role := fs.String("role", "", "add: admin, support or auditor")
	base := fs.String("url", "", "add, reissue: the console's base URL the setup link starts with (default: http:// and GATEWAY_ADMIN_ADDR)")
	by := fs.String("by", "", "who makes the change, recorded in the audit log (default: the OS user)")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if (sub == "list") != (len(pos) == 0) || len(pos) > 1 {
		return fmt.Errorf("operator %s: want %s\n%s", sub, synopsis, operatorUsage)
	}
	if sub == "add" && !access.Role(*role).Valid(access.RealmOperator) {
		return fmt.Errorf("operator add: --role must be admin, support or auditor\n%s", operatorUsage)
	}
	actor, err := cliAuditActor(*by, given(fs, "by"))
	if err != nil {
		return fmt.Errorf("operator %s: %w", sub, err)
	}
	for i := range pos { // an e-mail address, free text until access reads it
		if pos[i], err = audit.Text("EMAIL", pos[i], maxEmail); err != nil {
			return fmt.Errorf("operator %s: %w", sub, err)
		}
	}
	rdb, err := redisFlag.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	accts, err := cliAccounts(rdb)
	if err != nil {
		return err
	}
	if *base == "" {
		cfg, err := envConfig()
		if err != nil {
			return err
		}
		*base = "http://" + cfg.AdminAddr
	}
	out := output{w: stdout, json: *asJSON}
	switch sub {
	case "list":
		ops, err := accts.List(ctx, access.RealmOperator, "")
		if err != nil || out.json {
			return errors.Join(err, out.value(nonNil(ops)))
		}
		printOperators(stdout, ops)
		return nil
	case "add":
		acct, token, err := access.NewTeam(accts).Create(ctx, actor, access.NewUser{Realm: access.RealmOperator, Email: pos[0], Role: access.Role(*role)})
		if err != nil {
			return err
		}
		return setupView(acct, *base, token).print(out, "operator")
	}
	acct, err := accts.ByEmail(ctx, access.RealmOperator, pos[0])
	if err != nil {
		return fmt.Errorf("operator %s: %w", pos[0], err)
	}
	switch sub {
	case "reissue":
		token, err := access.NewTeam(accts).Reissue(ctx, actor, acct.ID)
		if err != nil {
			return err
		}
		return setupView(acct, *base, token).print(out, "operator")
	case "unlock":
		if err := access.NewTeam(accts).UnlockSecondFactor(ctx, actor, acct.ID); err != nil {
			return err
		}
	default: // disable, enable
		if err := access.NewTeam(accts).SetDisabled(ctx, actor, acct.ID, sub == "disable"); err != nil {
			return err
		}
	}
	if acct, err = accts.Get(ctx, acct.ID); err != nil {
		return err
	}
	return out.value(acct)
}

// cliAccounts is the accounts service as a command-line tool needs it: no
// metrics to export, nothing to log but errors it returns.
func cliAccounts(rdb redis.UniversalClient) (*access.Accounts, error) {
	reg, quiet := prometheus.NewRegistry(), slog.New(slog.NewTextHandler(io.Discard, nil))
	limiter, err := platform.NewLimiter(rdb, platform.LimiterConfig{}, reg, quiet)
	if err != nil {
		return nil, err
	}
	return access.New(access.Defaults(), rdb, merchant.NewPasswordHasher(), limiter, reg, quiet)
}

// maxEmail bounds an e-mail address a command is given (RFC 5321's path
// limit), under the consoles' free-text rule (audit.Text).
const maxEmail = 254

// cliAuditActor is who a CLI change is recorded as in the audit log: the
// CLI realm, and the person --by names or the OS user.
func cliAuditActor(by string, byGiven bool) (access.Actor, error) {
	name, err := cliActor(by, byGiven, osUserName)
	if err != nil {
		return access.Actor{}, err
	}
	a := access.CLI()
	a.ID = strings.TrimPrefix(name, "cli:")
	return a, nil
}

// setupView is a new account with its setup link, shown this once.
func setupView(acct *access.Account, base, token string) newAccountSetup {
	return newAccountSetup{ID: acct.ID, Email: acct.Email, Role: string(acct.Role),
		SetupLink: strings.TrimRight(base, "/") + admin.SetupPath + url.PathEscape(token)}
}

func printOperators(w io.Writer, ops []*access.Account) {
	if len(ops) == 0 {
		_ = noRows(w, "operators", "gateway operator add EMAIL --role admin")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EMAIL\tROLE\tSTATE\tSET UP\tCREATED\tID")
	for _, a := range ops {
		state, setup := "enabled", "no"
		switch {
		case a.Disabled:
			state = "disabled"
		case a.SecondFactorLocked:
			state = "locked"
		}
		if a.PasswordSet && a.TOTP {
			setup = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", a.Email, a.Role, state, setup, a.CreatedAt.Format("2006-01-02T15:04:05Z"), a.ID)
	}
	_ = tw.Flush()
}
