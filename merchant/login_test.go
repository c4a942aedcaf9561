package merchant

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

const goodPassword = "correct horse battery"

// payerAccounts makes an enabled payer with a password, one disabled with a
// password and one without a password.
func payerAccounts(t *testing.T, s *Store) (payer, disabled, nopw *Account) {
	t.Helper()
	ctx := context.Background()
	var err error
	mk := func(name string) *Account {
		t.Helper()
		a, err := s.Create(ctx, NewAccount{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	payer, disabled, nopw = mk("payer"), mk("disabled"), mk("nopw")
	for _, a := range []*Account{payer, disabled} {
		if err = s.SetPassword(ctx, a.AppID, goodPassword); err != nil {
			t.Fatal(err)
		}
	}
	if _, err = s.SetDisabled(ctx, disabled.AppID, true); err != nil {
		t.Fatal(err)
	}
	return payer, disabled, nopw
}

// TestCheckPassword: only the right password of an enabled account passes;
// every failure is ErrBadCredentials and costs exactly one hash, so an
// unknown account is not answered faster than a wrong password.
func TestCheckPassword(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	payer, disabled, nopw := payerAccounts(t, s)
	tests := []struct {
		name, appid, password string
		ok                    bool
	}{
		{"right password", payer.AppID, goodPassword, true},
		{"wrong password", payer.AppID, goodPassword + "!", false},
		{"unknown account", "424242", goodPassword, false},
		{"empty appid", "", goodPassword, false},
		{"no password set", nopw.AppID, goodPassword, false},
		{"disabled account", disabled.AppID, goodPassword, false},
		{"overlong password", payer.AppID, strings.Repeat("x", MaxPasswordLen+1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := s.pw.Hashed()
			a, err := s.CheckPassword(ctx, tt.appid, tt.password)
			if n := s.pw.Hashed() - before; n != 1 {
				t.Errorf("%d hashes, want 1 on every path", n)
			}
			if tt.ok {
				if err != nil || a == nil || a.AppID != tt.appid {
					t.Fatalf("got %+v, %v", a, err)
				}
				return
			}
			if !errors.Is(err, ErrBadCredentials) || a != nil {
				t.Fatalf("got %+v, %v; want ErrBadCredentials", a, err)
			}
		})
	}
}

func TestSetPassword(t *testing.T) {
	s, mr := newStore(t)
	ctx := context.Background()
	a, _ := s.Create(ctx, NewAccount{Name: "payer"})
	tests := []struct {
		name, appid, password string
		wantErr               bool
	}{
		{"shortest", a.AppID, strings.Repeat("a", MinPasswordLen), false},
		{"longest", a.AppID, strings.Repeat("b", MaxPasswordLen), false},
		{"too short", a.AppID, strings.Repeat("a", MinPasswordLen-1), true},
		{"too long", a.AppID, strings.Repeat("b", MaxPasswordLen+1), true},
		{"unknown account", "424242", goodPassword, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.SetPassword(ctx, tt.appid, tt.password)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, want error %v", err, tt.wantErr)
			}
			if err == nil {
				if _, err := s.CheckPassword(ctx, tt.appid, tt.password); err != nil {
					t.Fatalf("the password just set does not check: %v", err)
				}
			}
		})
	}
	stored := mr.HGet(schema.MerchantKey(a.AppID), fPassword)
	if !strings.HasPrefix(stored, "$argon2id$v=19$m=19456,t=2,p=1$") || strings.Contains(stored, "bbbbbbbbbb") {
		t.Fatalf("stored password %q", stored)
	}
	got, _ := s.Get(ctx, a.AppID)
	if j, _ := json.Marshal(got); strings.Contains(string(j), "argon2") {
		t.Fatalf("the account's JSON carries the password hash: %s", j)
	}
}

// newLogins runs the logins over the real Redis, whose limiter script
// miniredis cannot run.
func newLogins(t *testing.T, rdb *redis.Client, cfg LoginConfig, withLimiter bool) *Logins {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var lim *platform.Limiter
	if withLimiter {
		var err error
		if lim, err = platform.NewLimiter(rdb, platform.LimiterConfig{}, prometheus.NewRegistry(), log); err != nil {
			t.Fatal(err)
		}
	}
	l, err := NewLogins(cfg, rdb, lim, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

var (
	ip1 = netip.MustParseAddr("192.0.2.1")
	ip2 = netip.MustParseAddr("192.0.2.2")
)

func wantKind(t *testing.T, err error, kind platform.Kind) {
	t.Helper()
	var pe *platform.Error
	if !errors.As(err, &pe) || pe.Kind != kind {
		t.Fatalf("err %v, want %s", err, kind)
	}
}

func TestLogin(t *testing.T) {
	rdb := testenv.Redis(t)
	l := newLogins(t, rdb, LoginConfig{}, true)
	ctx := context.Background()
	payer, disabled, nopw := payerAccounts(t, l.store)
	tests := []struct {
		name, appid, password string
		ok                    bool
	}{
		{"ok", payer.AppID, goodPassword, true},
		{"wrong password", payer.AppID, "not the password", false},
		{"unknown account", "424242", goodPassword, false},
		{"not an appid", strings.Repeat("z", 500), goodPassword, false},
		{"no password", nopw.AppID, goodPassword, false},
		{"disabled", disabled.AppID, goodPassword, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token, a, err := l.Login(ctx, tt.appid, tt.password, ip1)
			if !tt.ok {
				wantKind(t, err, platform.KindBadCredentials)
				if !errors.Is(err, ErrBadCredentials) || !strings.Contains(platform.Classify(err).Msg, "wrong account or password") || token != "" {
					t.Fatalf("err %v, token %q", err, token)
				}
				if platform.Classify(err).Code != 401 {
					t.Fatalf("bad credentials answered %d", platform.Classify(err).Code)
				}
				return
			}
			if err != nil || a.AppID != payer.AppID || len(token) != tokenLen {
				t.Fatalf("login: %q %+v %v", token, a, err)
			}
			if got, err := l.Session(ctx, token); err != nil || got.AppID != payer.AppID {
				t.Fatalf("session: %+v %v", got, err)
			}
			if ttl := rdb.TTL(ctx, sessionKey(token)).Val(); ttl <= 0 || ttl > 15*time.Minute {
				t.Fatalf("session TTL %v", ttl)
			}
			if n := rdb.Exists(ctx, schema.SessionKey(token)).Val(); n != 0 {
				t.Fatal("the session key is named by the token itself")
			}
		})
	}
	if got := testutil.ToFloat64(l.results.WithLabelValues(loginBad)); got != 5 {
		t.Errorf("bad credential logins counted %v, want 5", got)
	}
	if got := testutil.ToFloat64(l.results.WithLabelValues(loginOK)); got != 1 {
		t.Errorf("good logins counted %v, want 1", got)
	}
}

// TestSessionEnds: logout, expiry, a password change and disabling the
// account each end a session; a token nobody issued is no session.
func TestSessionEnds(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	l := newLogins(t, rdb, LoginConfig{SessionTTL: time.Minute}, false)
	ctx := context.Background()
	payer, _, _ := payerAccounts(t, l.store)
	tests := []struct {
		name string
		end  func(token string)
	}{
		{"logout", func(token string) {
			if err := l.Logout(ctx, token); err != nil {
				t.Fatal(err)
			}
		}},
		{"expiry", func(string) { mr.FastForward(time.Minute + time.Second) }},
		{"password change", func(string) {
			if err := l.store.SetPassword(ctx, payer.AppID, goodPassword); err != nil {
				t.Fatal(err)
			}
		}},
		{"disabled", func(string) {
			if _, err := l.store.SetDisabled(ctx, payer.AppID, true); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := l.store.SetDisabled(ctx, payer.AppID, false); err != nil {
				t.Fatal(err)
			}
			token, _, err := l.Login(ctx, payer.AppID, goodPassword, ip1)
			if err != nil {
				t.Fatal(err)
			}
			mr.FastForward(time.Minute - time.Second)
			if _, err := l.Session(ctx, token); err != nil {
				t.Fatalf("session before its end: %v", err)
			}
			tt.end(token)
			if a, err := l.Session(ctx, token); !errors.Is(err, ErrNoSession) {
				t.Fatalf("after %s: %+v %v", tt.name, a, err)
			}
		})
	}
	for _, bad := range []string{"", "short", newToken()} {
		if _, err := l.Session(ctx, bad); !errors.Is(err, ErrNoSession) {
			t.Errorf("token %q: %v", bad, err)
		}
	}
}

// TestLoginRateLimits: the IP limit holds across accounts and the account
// limit across IPs, even for the right password, and a refused attempt
// costs no password hash.
func TestLoginRateLimits(t *testing.T) {
	rdb := testenv.Redis(t)
	slow := platform.Limit{PerSecond: 1.0 / 3600, Burst: 3}
	wide := platform.Limit{PerSecond: 1000, Burst: 1000}
	ctx := context.Background()
	t.Run("per IP", func(t *testing.T) {
		l := newLogins(t, rdb, LoginConfig{PerIP: slow, PerAccount: wide}, true)
		payer, disabled, nopw := payerAccounts(t, l.store)
		for _, appid := range []string{payer.AppID, disabled.AppID, nopw.AppID} {
			_, _, err := l.Login(ctx, appid, "wrong password", ip1)
			wantKind(t, err, platform.KindBadCredentials)
		}
		before := l.store.pw.Hashed()
		_, _, err := l.Login(ctx, payer.AppID, goodPassword, ip1)
		var rl *platform.RateLimited
		if !errors.As(err, &rl) || rl.RetryAfter <= 0 {
			t.Fatalf("fourth attempt from one IP: %v", err)
		}
		if l.store.pw.Hashed() != before {
			t.Error("a rate-limited attempt hashed the password")
		}
		if _, _, err := l.Login(ctx, payer.AppID, goodPassword, ip2); err != nil {
			t.Fatalf("another IP: %v", err)
		}
		if got := testutil.ToFloat64(l.results.WithLabelValues(loginRateLimited)); got != 1 {
			t.Errorf("rate-limited logins counted %v", got)
		}
	})
	t.Run("per account", func(t *testing.T) {
		l := newLogins(t, rdb, LoginConfig{PerIP: wide, PerAccount: slow}, true)
		payer, disabled, _ := payerAccounts(t, l.store)
		for i := range 3 {
			ip := netip.AddrFrom4([4]byte{198, 51, 100, byte(i)})
			_, _, err := l.Login(ctx, payer.AppID, "wrong password", ip)
			wantKind(t, err, platform.KindBadCredentials)
		}
		// Addresses of their own: the per-IP case left 192.0.2.x limited.
		other := netip.MustParseAddr("203.0.113.9")
		var rl *platform.RateLimited
		if _, _, err := l.Login(ctx, payer.AppID, goodPassword, other); !errors.As(err, &rl) {
			t.Fatalf("fourth attempt on one account: %v", err)
		}
		if _, _, err := l.Login(ctx, disabled.AppID, goodPassword, other); !errors.Is(err, ErrBadCredentials) {
			t.Fatalf("another account is limited too: %v", err)
		}
	})
}
