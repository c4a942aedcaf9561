package main

import (
	"context"
	"io"
	"log/slog"
	"net/netip"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/frame/frametest"
)

// TestOperatorUnlockCLI: an operator whose second factor locked after ten
// wrong codes shows as locked in `gateway operator list`; `gateway
// operator unlock` unlocks it, audited as the CLI's by --by; unlocking an
// unlocked account fails.
func TestOperatorUnlockCLI(t *testing.T) {
	e := &e2e{t: t, bin: gatewayBinary(t), redisURL: testenv.RedisURL(t)}
	ctx := context.Background()
	rdb := testenv.Client(t, e.redisURL)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	lim, err := platform.NewLimiter(rdb, platform.LimiterConfig{}, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	cfg := access.Defaults()
	cfg.PerIP = platform.Limit{PerSecond: 100, Burst: 100}
	cfg.PerAccount = cfg.PerIP
	accts, err := access.New(cfg, rdb, merchant.NewPasswordHasher(), lim, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	_, token, err := access.NewTeam(accts).Create(ctx, access.CLI(), access.NewUser{Realm: access.RealmOperator, Email: "sup@ops.test", Role: access.RoleSupport})
	if err != nil {
		t.Fatal(err)
	}
	_, enr, _, err := accts.BeginSetup(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	code, _ := totp.GenerateCodeCustom(enr.Secret, time.Now(), totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	const pw = "correct horse battery"
	if _, _, err := accts.CompleteSetup(ctx, access.Setup{Realm: access.RealmOperator, Token: token, Password: pw, TOTPSecret: enr.Secret, TOTPCode: code}); err != nil {
		t.Fatal(err)
	}
	for range cfg.SecondFactorLimit {
		_, _ = accts.Login(ctx, access.LoginRequest{Realm: access.RealmOperator, Email: "sup@ops.test", Password: pw, Code: "000000",
			IP: netip.MustParseAddr("192.0.2.5")})
	}
	list := func() string {
		t.Helper()
		cmd := exec.Command(e.bin, "operator", "list")
		cmd.Env = append(cmd.Environ(), "GATEWAY_REDIS_URL="+e.redisURL)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("operator list: %v\n%s", err, out)
		}
		return string(out)
	}
	if out := list(); !strings.Contains(out, "locked") {
		t.Fatalf("operator list shows no lock:\n%s", out)
	}
	var got struct{ SecondFactorLocked bool }
	e.cli(&got, "operator", "unlock", "sup@ops.test", "--by", "dora", "--json")
	if got.SecondFactorLocked {
		t.Fatal("still locked after operator unlock")
	}
	if out := list(); strings.Contains(out, "locked") {
		t.Fatalf("operator list still shows the lock:\n%s", out)
	}
	rows, err := audit.Read(ctx, rdb, schema.AuditKey(schema.AccessTag), 50)
	if err != nil {
		t.Fatal(err)
	}
	var locks, unlocks int
	for _, r := range rows {
		switch {
		case r.Action == "account.second_factor_locked" && r.Realm == string(access.RealmOperator):
			locks++
		case r.Action == "user.unlock_second_factor" && r.Realm == audit.RealmCLI && r.ActorID == "dora":
			unlocks++
		}
	}
	if locks != 1 || unlocks != 1 {
		t.Fatalf("audit: %d lock and %d unlock entries, want 1 and 1", locks, unlocks)
	}
	cmd := exec.Command(e.bin, "operator", "unlock", "sup@ops.test")
	cmd.Env = append(cmd.Environ(), "GATEWAY_REDIS_URL="+e.redisURL)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "not locked") {
		t.Fatalf("unlocking an unlocked operator: %v\n%s", err, out)
	}
}

// TestConsoleUserUnlockCLI: `gateway console-user unlock APPID EMAIL`
// unlocks a merchant user's second factor; a user of another merchant is
// not found.
func TestConsoleUserUnlockCLI(t *testing.T) {
	e := &e2e{t: t, bin: gatewayBinary(t), redisURL: testenv.RedisURL(t)}
	ctx := context.Background()
	rdb := testenv.Client(t, e.redisURL)
	accts, err := cliAccounts(rdb)
	if err != nil {
		t.Fatal(err)
	}
	ms := merchant.NewStore(rdb)
	shop, err := ms.Create(ctx, merchant.NewAccount{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := ms.Create(ctx, merchant.NewAccount{Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	_, acct := frametest.Enrol(t, accts, access.NewUser{Realm: access.RealmMerchant, AppID: shop.AppID, Email: "fin@shop.test", Role: access.RoleFinance}, time.Now())
	frametest.LockSecondFactor(t, rdb, access.RealmMerchant, "fin@shop.test")
	cmd := exec.Command(e.bin, "console-user", "unlock", other.AppID, "fin@shop.test")
	cmd.Env = append(cmd.Environ(), "GATEWAY_REDIS_URL="+e.redisURL)
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("unlocked through another merchant:\n%s", out)
	}
	e.cli(nil, "console-user", "unlock", shop.AppID, "fin@shop.test")
	if a, err := accts.Get(ctx, acct.ID); err != nil || a.SecondFactorLocked {
		t.Fatalf("still locked after console-user unlock: %v", err)
	}
}
