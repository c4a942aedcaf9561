package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/console"
)

const consoleUserUsage = `usage: gateway console-user <subcommand> [flags]

  add APPID EMAIL --role ROLE   make a merchant console user (owner, developer,
                                finance or viewer) and print its one-time setup
                                link (valid 72 h); the person sets a password
                                and TOTP there
  list APPID                    the merchant's console users
  unlock APPID EMAIL            unlock the user's second factor, locked after
                                too many wrong codes in a row (the merchant's
                                owners can, on Team & security)

Each is written to the audit log as the CLI's action.
`

// consoleUserCmd manages merchant console users from the operator's machine:
// the first owner of a merchant is made here.
func consoleUserCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "add" && args[0] != "list" && args[0] != "unlock") {
		fmt.Fprint(stderr, consoleUserUsage)
		return errors.New("console-user: want add, list or unlock")
	}
	sub := args[0]
	fs := subFlags("console-user", sub, "APPID [EMAIL --role ROLE] [--json]", args[1:], stdout, stderr)
	redisFlag := bindRedis(fs)
	role := fs.String("role", "", "the user's role: owner, developer, finance or viewer")
	defURL := os.Getenv("GATEWAY_PUBLIC_URL")
	if defURL == "" {
		defURL = "http://127.0.0.1:8080"
	}
	publicURL := fs.String("public-url", defURL, "the gateway's public URL, for the setup link (GATEWAY_PUBLIC_URL)")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if (sub != "list" && len(pos) != 2) || (sub == "list" && len(pos) != 1) {
		return fmt.Errorf("console-user %s: wrong arguments\n%s", sub, consoleUserUsage)
	}
	if sub == "add" && !access.Role(*role).Valid(access.RealmMerchant) {
		return fmt.Errorf("console-user add: --role must be owner, developer, finance or viewer")
	}
	var email string
	if sub != "list" {
		if email, err = audit.Text("EMAIL", pos[1], maxEmail); err != nil {
			return fmt.Errorf("console-user %s: %w", sub, err)
		}
	}
	rdb, err := redisFlag.open(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	if _, err := merchant.NewStore(rdb).Get(ctx, pos[0]); err != nil {
		return fmt.Errorf("console-user: merchant %s: %w", pos[0], err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	limiter, err := platform.NewLimiter(rdb, platform.LimiterConfig{}, prometheus.NewRegistry(), log)
	if err != nil {
		return err
	}
	acc, err := access.New(access.Defaults(), rdb, merchant.NewPasswordHasher(), limiter, prometheus.NewRegistry(), log)
	if err != nil {
		return err
	}
	switch sub {
	case "add":
		return addConsoleUser(ctx, acc, pos[0], email, access.Role(*role), strings.TrimSuffix(*publicURL, "/"), *asJSON, stdout)
	case "unlock":
		return unlockConsoleUser(ctx, acc, pos[0], email, stdout)
	}
	users, err := acc.List(ctx, access.RealmMerchant, pos[0])
	if err != nil {
		return err
	}
	e := audit.Entry{At: time.Now().UTC(), Realm: audit.RealmCLI, Action: "user.list", Target: "merchant:" + pos[0], AppID: pos[0],
		Source: "cli", ActorEmail: osUserName(), Details: map[string]string{"count": fmt.Sprint(len(users))}}
	if _, err := audit.NewLog(rdb).Append(ctx, e); err != nil {
		return err
	}
	return printConsoleUsers(users, *asJSON, stdout)
}

func addConsoleUser(ctx context.Context, acc *access.Accounts, appid, email string, role access.Role, publicURL string, asJSON bool, stdout io.Writer) error {
	if !role.Valid(access.RealmMerchant) {
		return fmt.Errorf("console-user add: --role must be owner, developer, finance or viewer")
	}
	actor := access.CLI()
	actor.Email = osUserName()
	a, token, err := access.NewTeam(acc).Create(ctx, actor, access.NewUser{Realm: access.RealmMerchant, AppID: appid, Email: email, Role: role})
	if err != nil {
		return err
	}
	s := newAccountSetup{ID: a.ID, Email: a.Email, Role: string(a.Role), AppID: appid, SetupLink: publicURL + console.Base + "/setup/" + token}
	return s.print(output{w: stdout, json: asJSON}, "console user")
}

// unlockConsoleUser unlocks the second factor of appid's user email.
func unlockConsoleUser(ctx context.Context, acc *access.Accounts, appid, email string, stdout io.Writer) error {
	a, err := acc.ByEmail(ctx, access.RealmMerchant, email)
	if err != nil || a.AppID != appid {
		return fmt.Errorf("console-user unlock: no user %s of merchant %s", email, appid)
	}
	actor := access.CLI()
	actor.Email = osUserName()
	if err := access.NewTeam(acc).UnlockSecondFactor(ctx, actor, a.ID); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "the second factor of %s (%s) is unlocked.\n", a.Email, appid)
	return nil
}

func printConsoleUsers(users []*access.Account, asJSON bool, stdout io.Writer) error {
	if asJSON {
		return output{w: stdout, json: true}.value(nonNil(users))
	}
	if len(users) == 0 {
		return noRows(stdout, "console users", "gateway console-user add APPID EMAIL --role owner")
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEMAIL\tROLE\tPASSWORD\tTOTP\tTOTP LOCKED\tDISABLED\tCREATED")
	for _, u := range users {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%v\t%v\t%v\t%s\n", u.ID, u.Email, u.Role, u.PasswordSet, u.TOTP, u.SecondFactorLocked, u.Disabled,
			u.CreatedAt.UTC().Format(time.RFC3339))
	}
	return tw.Flush()
}
