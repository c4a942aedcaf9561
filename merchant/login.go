package merchant

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// ErrNoSession is a session token that is unknown, expired, logged out, or
// whose account has since changed its password or been disabled.
var ErrNoSession = errors.New("no session")

// LoginConfig bounds payer logins. Zero fields take the defaults.
type LoginConfig struct {
	SessionTTL time.Duration  // a session lasts this long from login (default 15 min)
	PerIP      platform.Limit // attempts per client IP (default 10/min)
	PerAccount platform.Limit // attempts per account (default 5/min)
}

// LoginDefaults is a short session, enough to confirm one payment, and
// limits that let a person mistype and stop a guesser.
func LoginDefaults() LoginConfig {
	return LoginConfig{
		SessionTTL: 15 * time.Minute,
		PerIP:      platform.Limit{PerSecond: 10.0 / 60, Burst: 10},
		PerAccount: platform.Limit{PerSecond: 5.0 / 60, Burst: 5},
	}
}

// withDefaults fills the zero fields from LoginDefaults.
func (c LoginConfig) withDefaults() LoginConfig {
	d := LoginDefaults()
	if c.SessionTTL == 0 {
		c.SessionTTL = d.SessionTTL
	}
	if c.PerIP == (platform.Limit{}) {
		c.PerIP = d.PerIP
	}
	if c.PerAccount == (platform.Limit{}) {
		c.PerAccount = d.PerAccount
	}
	return c
}

// Validate checks the bounds; it changes nothing.
func (c LoginConfig) Validate() error {
	var errs []error
	if c.SessionTTL < time.Second {
		errs = append(errs, errors.New("login: session TTL must be at least a second"))
	}
	if c.PerIP.PerSecond <= 0 || c.PerIP.Burst < 1 || c.PerAccount.PerSecond <= 0 || c.PerAccount.Burst < 1 {
		errs = append(errs, errors.New("login: limits must be positive"))
	}
	return errors.Join(errs...)
}

// Logins checks payers' passwords and keeps their sessions in Redis, so
// that every gateway process knows them.
type Logins struct {
	cfg     LoginConfig
	store   *Store
	rdb     redis.UniversalClient
	limiter *platform.Limiter
	log     *slog.Logger
	results *prometheus.CounterVec
}

// Login results, the label values of the logins counter.
const (
	loginOK          = "ok"
	loginBad         = "bad_credentials"
	loginRateLimited = "rate_limited"
	loginError       = "error"
)

// NewLogins wires the logins.
func NewLogins(cfg LoginConfig, rdb redis.UniversalClient, limiter *platform.Limiter, reg prometheus.Registerer, log *slog.Logger) (*Logins, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	results := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gateway_payer_logins_total", Help: "Payer logins at /merchant/login, by result.",
	}, []string{"result"})
	if err := reg.Register(results); err != nil {
		return nil, fmt.Errorf("register login metrics: %w", err)
	}
	for _, r := range []string{loginOK, loginBad, loginRateLimited, loginError} {
		results.WithLabelValues(r)
	}
	return &Logins{cfg: cfg, store: NewStore(rdb), rdb: rdb, limiter: limiter, log: log, results: results}, nil
}

// Login checks appid's password after the limits of the client IP and the
// account, and opens a session. A wrong password of any kind is the
// bad_credentials error saying "wrong account or password"; an exceeded
// limit is a *platform.RateLimited. The per-account limit lets anyone slow
// an account's own logins down; the alternative, unlimited guesses spread
// over many addresses, is worse.
func (l *Logins) Login(ctx context.Context, appid, password string, ip netip.Addr) (token string, acct *Account, err error) {
	defer func() { l.results.WithLabelValues(loginResult(err)).Inc() }()
	if !plausibleAppID(appid) {
		appid = "" // bounds the limiter's keys; an unknown account all the same
	}
	if err := l.limiter.Allow(ctx, platform.ClassLogin, "ip:"+ip.String(), l.cfg.PerIP); err != nil {
		return "", nil, err
	}
	if err := l.limiter.Allow(ctx, platform.ClassLogin, "acct:"+appid, l.cfg.PerAccount); err != nil {
		return "", nil, err
	}
	a, pwVer, err := l.store.checkPassword(ctx, appid, password)
	if errors.Is(err, ErrBadCredentials) {
		return "", nil, &platform.Error{Kind: platform.KindBadCredentials, Msg: "wrong account or password", Err: err}
	}
	if err != nil {
		return "", nil, err
	}
	token = newToken()
	if err := l.rdb.Set(ctx, sessionKey(token), a.AppID+" "+pwVer, l.cfg.SessionTTL).Err(); err != nil {
		return "", nil, fmt.Errorf("save session: %w", err)
	}
	l.log.Info("payer logged in", "appid", a.AppID)
	return token, a, nil
}

// Session returns the account a session token is for, or ErrNoSession.
func (l *Logins) Session(ctx context.Context, token string) (*Account, error) {
	if len(token) != tokenLen {
		return nil, ErrNoSession
	}
	v, err := l.rdb.Get(ctx, sessionKey(token)).Result()
	if errors.Is(err, redis.Nil) {
		return nil, ErrNoSession
	}
	if err != nil {
		return nil, fmt.Errorf("read session: %w", err)
	}
	appid, pwVer, _ := strings.Cut(v, " ")
	a, h, err := l.store.getWithSecrets(ctx, appid)
	if errors.Is(err, ErrNotFound) {
		return nil, ErrNoSession
	}
	if err != nil {
		return nil, err
	}
	if a.Disabled || h[fPasswordVer] != pwVer {
		return nil, ErrNoSession
	}
	return a, nil
}

// Logout ends a session; ending one that is gone already is fine.
func (l *Logins) Logout(ctx context.Context, token string) error {
	if len(token) != tokenLen {
		return nil
	}
	if err := l.rdb.Del(ctx, sessionKey(token)).Err(); err != nil {
		return fmt.Errorf("end session: %w", err)
	}
	return nil
}

// tokenLen is the length of a token: 256 random bits, base64url.
const tokenLen = 43

func newToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func sessionKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return schema.SessionKey(hex.EncodeToString(sum[:]))
}

// plausibleAppID is what an appid can look like: a few digits.
func plausibleAppID(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func loginResult(err error) string {
	var rl *platform.RateLimited
	var pe *platform.Error
	switch {
	case err == nil:
		return loginOK
	case errors.As(err, &rl):
		return loginRateLimited
	case errors.As(err, &pe) && pe.Kind == platform.KindBadCredentials:
		return loginBad
	}
	return loginError
}
