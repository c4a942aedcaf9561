package access

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
)

// TestLoginRefusals: every wrong credential is refused with the one answer,
// and the right ones log in. Each case fails if its guard goes.
func TestLoginRefusals(t *testing.T) {
	e := newEnv(t, generousLimits)
	op := e.mkUser(t, RealmOperator, "admin@ops.test", RoleAdmin, true)
	ctx := context.Background()
	// Spent before the table: a code used once, a recovery code used once.
	used := e.code(t, op.secret, 0)
	if _, err := e.login(op, goodPassword, used, ip1); err != nil {
		t.Fatal(err)
	}
	if _, err := e.login(op, goodPassword, op.recovery[0], ip1); err != nil {
		t.Fatalf("first use of a recovery code: %v", err)
	}
	tests := []struct {
		name      string
		email, pw string
		code      func() string
		cause     error
	}{
		{"wrong password", op.acct.Email, goodPassword + "!", func() string { return e.code(t, op.secret, 0) }, ErrWrongPassword},
		{"unknown e-mail", "nobody@ops.test", goodPassword, func() string { return e.code(t, op.secret, 0) }, ErrWrongPassword},
		{"wrong TOTP code", op.acct.Email, goodPassword, func() string { c := e.code(t, op.secret, 0); return c[:5] + string('0'+(c[5]-'0'+1)%10) }, ErrWrongCode},
		{"TOTP code two steps old", op.acct.Email, goodPassword, func() string { return e.code(t, op.secret, -2) }, ErrWrongCode},
		{"no code", op.acct.Email, goodPassword, func() string { return "" }, ErrWrongCode},
		{"replayed TOTP code", op.acct.Email, goodPassword, func() string { return used }, ErrCodeReplayed},
		{"reused recovery code", op.acct.Email, goodPassword, func() string { return op.recovery[0] }, ErrRecoveryUsed},
		{"made-up recovery code", op.acct.Email, goodPassword, func() string { return "aaaaa-bbbbb" }, ErrRecoveryUsed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := e.a.Login(ctx, LoginRequest{Realm: RealmOperator, Email: tt.email, Password: tt.pw, Code: tt.code(), IP: ip2})
			if s != nil {
				t.Fatalf("logged in: %+v", s)
			}
			wantBadLogin(t, err, tt.cause)
		})
	}
	if n := testutil.ToFloat64(e.a.logins.WithLabelValues("operator", resultBad)); n != float64(len(tests)) {
		t.Errorf("%v refusals counted, want %d", n, len(tests))
	}
	e.clock.add(30 * time.Second)
	if _, err := e.login(op, goodPassword, strings.ToUpper(op.recovery[1]), ip2); err != nil {
		t.Fatalf("another recovery code, typed in capitals: %v", err)
	}
	if _, err := e.login(op, goodPassword, e.code(t, op.secret, 0), ip2); err != nil {
		t.Fatalf("the right password and a fresh code: %v", err)
	}
}

// TestTOTPRequired: an operator account never logs in without TOTP, nor a
// merchant user once the owner requires it; requiring it ends the
// sessions of those without.
func TestTOTPRequired(t *testing.T) {
	e := newEnv(t, generousLimits)
	ctx := context.Background()
	// An operator cannot even finish setup without TOTP.
	_, token, err := NewTeam(e.a).Create(ctx, CLI(), NewUser{Realm: RealmOperator, Email: "sup@ops.test", Role: RoleSupport})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.a.CompleteSetup(ctx, Setup{Realm: RealmOperator, Token: token, Password: goodPassword}); !errors.Is(err, ErrTOTPRequired) {
		t.Fatalf("operator setup without TOTP: %v", err)
	}
	owner := e.mkUser(t, RealmMerchant, "owner@shop.test", RoleOwner, true)
	dev := e.mkUser(t, RealmMerchant, "dev@shop.test", RoleDeveloper, false)
	s, err := e.login(dev, goodPassword, "", ip1)
	if err != nil {
		t.Fatalf("a merchant user without TOTP, not required: %v", err)
	}
	os, err := e.login(owner, goodPassword, e.code(t, owner.secret, 0), ip1)
	if err != nil {
		t.Fatal(err)
	}
	if err := NewTeam(e.a).RequireTOTP(ctx, ActorOf(os, "192.0.2.1"), e.shop, true); err != nil {
		t.Fatal(err)
	}
	if _, err := e.a.Session(ctx, s.ID); !errors.Is(err, ErrNoSession) {
		t.Fatalf("the session of a user without TOTP survived the requirement: %v", err)
	}
	if _, err := e.a.Session(ctx, os.ID); err != nil {
		t.Fatalf("the owner's session (with TOTP) ended: %v", err)
	}
	_, err = e.login(dev, goodPassword, "", ip1)
	wantBadLogin(t, err, ErrTOTPRequired)
}

// TestBruteForceLimit: past the per-account limit the right password is
// refused too, from any address; past the per-IP limit, any account.
func TestBruteForceLimit(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.PerAccount = platform.Limit{PerSecond: 1.0 / 3600, Burst: 3}
		c.PerIP = platform.Limit{PerSecond: 1.0 / 3600, Burst: 5}
	})
	u := e.mkUser(t, RealmMerchant, "fin@shop.test", RoleFinance, false)
	for i := range 3 {
		_, err := e.login(u, "guess number "+itoa(i), "", netipN(i))
		wantBadLogin(t, err, ErrWrongPassword)
	}
	before := e.a.pw.Hashed()
	_, err := e.login(u, goodPassword, "", netipN(9))
	var rl *platform.RateLimited
	if !errors.As(err, &rl) {
		t.Fatalf("the right password over the account's limit: %v, want rate limited", err)
	}
	if e.a.pw.Hashed() != before {
		t.Error("a refused attempt hashed the password")
	}
	// Per IP: five attempts at five accounts from one address, then none.
	other := e.mkUser(t, RealmMerchant, "view@shop.test", RoleViewer, false)
	for i := range 5 {
		_, err := e.a.Login(context.Background(), LoginRequest{Realm: RealmMerchant, Email: "x" + itoa(i) + "@shop.test", Password: "guess", IP: ip2})
		wantBadLogin(t, err, ErrWrongPassword)
	}
	if _, err := e.login(other, goodPassword, "", ip2); !errors.As(err, &rl) {
		t.Fatalf("the right password over the address's limit: %v, want rate limited", err)
	}
}

// TestLimiterFailsClosed: when the limiter's Redis cannot answer, logins are
// refused (503), the right password included.
func TestLimiterFailsClosed(t *testing.T) {
	rdb := newEnv(t, nil).rdb
	mr := miniredis.RunT(t)
	dead := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1})
	t.Cleanup(func() { _ = dead.Close() })
	e := newEnvOn(t, rdb, dead, nil)
	u := e.mkUser(t, RealmMerchant, "owner@shop.test", RoleOwner, false)
	mr.Close()
	s, err := e.login(u, goodPassword, "", ip1)
	var pe *platform.Error
	if s != nil || !errors.As(err, &pe) || pe.Kind != platform.KindUnavailable {
		t.Fatalf("login with the limiter down: %+v, %v; want unavailable", s, err)
	}
}

// netipN is the i-th address after ip2: attempts from many addresses.
func netipN(i int) netip.Addr {
	a := ip2
	for range i + 1 {
		a = a.Next()
	}
	return a
}

// TestTOTPCodeRace: the same code sent by ten logins at once logs in once;
// the step is spent inside the login script, not checked and then set.
func TestTOTPCodeRace(t *testing.T) {
	e := newEnv(t, generousLimits)
	op := e.mkUser(t, RealmOperator, "admin@ops.test", RoleAdmin, true)
	code := e.code(t, op.secret, 0)
	var wg sync.WaitGroup
	var ok, replayed atomic.Int32
	for range 10 {
		wg.Go(func() {
			_, err := e.login(op, goodPassword, code, ip1)
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, ErrCodeReplayed):
				replayed.Add(1)
			default:
				t.Errorf("login: %v", err)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 1 || replayed.Load() != 9 {
		t.Fatalf("%d logins and %d replays, want 1 and 9", ok.Load(), replayed.Load())
	}
}
