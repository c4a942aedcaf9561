// Package frametest helps tests of a frame console: an account made ready
// to log in (password and TOTP set through access's own setup), TOTP codes
// for a test's clock, and a login through the page in a real browser.
package frametest

import (
	"context"
	"io"
	"log/slog"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
)

// Password is the password Enrol gives every account.
const Password = "correct horse battery"

// Code is the TOTP code of secret at time at.
func Code(t testing.TB, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatalf("frametest: TOTP code: %v", err)
	}
	return c
}

// Enrol creates an account as the CLI would and completes its setup with
// Password and a TOTP enrolment checked at time at; it returns the TOTP
// secret (for Code) and the account.
func Enrol(t testing.TB, a *access.Accounts, nu access.NewUser, at time.Time) (string, *access.Account) {
	t.Helper()
	ctx := context.Background()
	_, token, err := access.NewTeam(a).Create(ctx, access.CLI(), nu)
	if err != nil {
		t.Fatalf("frametest: create %s: %v", nu.Email, err)
	}
	_, enr, _, err := a.BeginSetup(ctx, token)
	if err != nil {
		t.Fatalf("frametest: begin setup: %v", err)
	}
	acct, _, err := a.CompleteSetup(ctx, access.Setup{Realm: nu.Realm, Token: token, Password: Password, TOTPSecret: enr.Secret,
		TOTPCode: Code(t, enr.Secret, at), Source: "127.0.0.1"})
	if err != nil {
		t.Fatalf("frametest: complete setup: %v", err)
	}
	return enr.Secret, acct
}

// Session logs in without a browser, for tests that drive HTTP directly.
func Session(t testing.TB, a *access.Accounts, realm access.Realm, email, code string) *access.Session {
	t.Helper()
	s, err := a.Login(context.Background(), access.LoginRequest{Realm: realm, Email: email, Password: Password,
		Code: code, IP: netip.MustParseAddr("127.0.0.1")})
	if err != nil {
		t.Fatalf("frametest: log in %s: %v", email, err)
	}
	return s
}

// Login logs in through the console's login page at base (the console's
// root URL, "http://127.0.0.1:PORT/console") and waits for the page the
// login leads to. A refused login fails the test with the page's words.
func Login(t testing.TB, pg *browser.Page, base, email, password, code string) {
	t.Helper()
	pg.Go(base + "/login")
	pg.Fill("#email", email)
	pg.Fill("#password", password)
	if code != "" {
		pg.Fill("#code", code)
	}
	pg.Submit("form[data-login]")
	if strings.Contains(pg.URL(), "/login") {
		var problem string
		pg.Eval(`(document.querySelector("[data-problem]") || {}).innerText || ""`, &problem)
		t.Fatalf("frametest: login of %s refused (%d): %s", email, pg.LastStatus(), problem)
	}
}

// LockSecondFactor locks the second factor of realm's account email (set
// up by Enrol) as a guesser would: Password and a wrong code, as many
// times as access's default limit, through accounts over rdb whose login
// limits let every attempt through.
func LockSecondFactor(t testing.TB, rdb redis.UniversalClient, realm access.Realm, email string) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	lim, err := platform.NewLimiter(rdb, platform.LimiterConfig{}, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatalf("frametest: limiter: %v", err)
	}
	cfg := access.Defaults()
	cfg.PerIP = platform.Limit{PerSecond: 1000, Burst: 1000}
	cfg.PerAccount = cfg.PerIP
	acc, err := access.New(cfg, rdb, merchant.NewPasswordHasher(), lim, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatalf("frametest: accounts: %v", err)
	}
	for range cfg.SecondFactorLimit {
		_, _ = acc.Login(context.Background(), access.LoginRequest{Realm: realm, Email: email, Password: Password, Code: "000000",
			IP: netip.MustParseAddr("192.0.2.66")})
	}
	if a, err := acc.ByEmail(context.Background(), realm, email); err != nil || !a.SecondFactorLocked {
		t.Fatalf("frametest: %s not locked (%v): is its account set up, and its login limit untouched?", email, err)
	}
}
