package access

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/netip"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/hotp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
)

const goodPassword = "correct horse battery"

var (
	ip1 = netip.MustParseAddr("192.0.2.1")
	ip2 = netip.MustParseAddr("192.0.2.2")
)

// clock is a test's time, moved by hand: sessions and setup links expire
// by it without the test sleeping.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is the accounts over this test's own database of the real Redis
// (the scripts, the limiter's included, run there), with a hand clock.
type env struct {
	a     *Accounts
	rdb   redis.UniversalClient
	clock *clock
	shop  string // a merchant's appid
}

func newEnv(t *testing.T, mod func(*Config)) *env {
	t.Helper()
	rdb := testenv.Redis(t)
	return newEnvOn(t, rdb, rdb, mod)
}

// newEnvOn lets the limiter talk to another Redis than the accounts (a dead
// one, to see it fail closed).
func newEnvOn(t *testing.T, rdb, limiterRDB redis.UniversalClient, mod func(*Config)) *env {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	lim, err := platform.NewLimiter(limiterRDB, platform.LimiterConfig{}, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)}
	cfg := Defaults()
	cfg.Clock = c.now
	if mod != nil {
		mod(&cfg)
	}
	a, err := New(cfg, rdb, merchant.NewPasswordHasher(), lim, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	m, err := merchant.NewStore(rdb).Create(context.Background(), merchant.NewAccount{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	return &env{a: a, rdb: rdb, clock: c, shop: m.AppID}
}

// user is a set-up account with what its person knows.
type user struct {
	acct     *Account
	secret   string   // TOTP secret, "" when none
	recovery []string // recovery codes
}

// mkUser creates an account and completes its setup, with TOTP or not.
func (e *env) mkUser(t *testing.T, realm Realm, email string, role Role, withTOTP bool) *user {
	t.Helper()
	ctx := context.Background()
	appid := ""
	if realm == RealmMerchant {
		appid = e.shop
	}
	_, token, err := NewTeam(e.a).Create(ctx, CLI(), NewUser{Realm: realm, AppID: appid, Email: email, Role: role})
	if err != nil {
		t.Fatal(err)
	}
	_, enr, _, err := e.a.BeginSetup(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	s := Setup{Realm: realm, Token: token, Password: goodPassword, Source: "192.0.2.9"}
	if withTOTP {
		s.TOTPSecret, s.TOTPCode = enr.Secret, e.code(t, enr.Secret, 0)
	}
	acct, codes, err := e.a.CompleteSetup(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	// The setup spent the current step; the tests log in from the next.
	e.clock.add(30 * time.Second)
	return &user{acct: acct, secret: s.TOTPSecret, recovery: codes}
}

// code is the TOTP code of secret at the clock's step plus off.
func (e *env) code(t *testing.T, secret string, off int) string {
	t.Helper()
	step := uint64(e.clock.now().Unix()/totpPeriod + int64(off))
	c, err := hotp.GenerateCodeCustom(secret, step, totpOpts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (e *env) login(u *user, password, code string, ip netip.Addr) (*Session, error) {
	return e.a.Login(context.Background(), LoginRequest{Realm: u.acct.Realm, Email: u.acct.Email, Password: password, Code: code, IP: ip})
}

// wantBadLogin checks err is the one bad-credentials answer, caused by cause.
func wantBadLogin(t *testing.T, err, cause error) {
	t.Helper()
	var pe *platform.Error
	if !errors.As(err, &pe) || pe.Kind != platform.KindBadCredentials || pe.Msg != "wrong e-mail, password or code" {
		t.Fatalf("err %v, want the bad_credentials answer", err)
	}
	if !errors.Is(err, cause) {
		t.Fatalf("err %v, want cause %v", err, cause)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// generousLimits lets a test make many attempts (the limits have their own test).
func generousLimits(c *Config) {
	c.PerIP = platform.Limit{PerSecond: 100, Burst: 100}
	c.PerAccount = c.PerIP
}
