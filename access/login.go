package access

import (
	"context"
	_ "embed"
	"errors"
	"net/netip"
	"strconv"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
)

var (
	//go:embed scripts/login.lua
	loginLua    string
	loginScript = audit.Script(loginLua)
)

// LoginRequest is what a login form sends.
type LoginRequest struct {
	Realm    Realm
	Email    string
	Password string
	Code     string     // a TOTP code, or a recovery code
	IP       netip.Addr // the client's address (platform.ClientIP)
	// OldSession is the session cookie the browser came with, if any: it
	// is ended, never reused, so an id planted before login is worthless.
	OldSession string
}

// Login results, the label values of the logins counter.
const (
	resultOK      = "ok"
	resultBad     = "bad_credentials"
	resultLimited = "rate_limited"
	resultError   = "error"
)

// Login checks the limits (per client IP, then per account; both fail
// closed when Redis cannot answer), the password, and the second factor,
// and opens a fresh session. Every refusal of the person is one error,
// KindBadCredentials "wrong e-mail, password or code", wrapping the
// precise reason for logs and tests; the per-account limit is spent
// before the password is checked, so guessing stops at the limit even
// when the guess is right.
func (a *Accounts) Login(ctx context.Context, r LoginRequest) (_ *Session, err error) {
	defer func() { a.logins.WithLabelValues(string(r.Realm), loginResult(err)).Inc() }()
	if r.Realm != RealmMerchant && r.Realm != RealmOperator {
		return nil, domain(platform.KindInvalidParameter, "unknown console", nil)
	}
	email, ok := normEmail(r.Email)
	if !ok {
		email = "" // bounds the limiter's keys; an unknown account all the same
	}
	if err := a.limiter.Allow(ctx, platform.ClassLogin, "console-ip:"+r.IP.String(), a.cfg.PerIP); err != nil {
		return nil, err
	}
	if err := a.limiter.Allow(ctx, platform.ClassLogin, "console-acct:"+string(r.Realm)+":"+email, a.cfg.PerAccount); err != nil {
		return nil, err
	}
	acct, h, err := a.checkPassword(ctx, r.Realm, email, r.Password)
	if err != nil {
		return nil, a.refused(ctx, r, acct, err)
	}
	factor, value, err := a.secondFactor(ctx, acct, h["totp"], isLocked(h["sfLocked"]), r.Code)
	if err != nil {
		return nil, a.factorFailed(ctx, r, acct, err)
	}
	return a.open(ctx, r, acct, h["pwVer"], factor, value)
}

// checkPassword returns the account and its stored fields when password
// is its password. Every path costs one hash.
func (a *Accounts) checkPassword(ctx context.Context, realm Realm, email, password string) (*Account, map[string]string, error) {
	var h map[string]string
	if email != "" {
		id, err := a.idByEmail(ctx, realm, email)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, nil, err
		}
		if id != "" {
			if h, err = a.rdb.HGetAll(ctx, userKey(id)).Result(); err != nil {
				return nil, nil, err
			}
		}
	}
	if h["pw"] == "" {
		if err := a.pw.Waste(ctx, password); err != nil {
			return nil, nil, err
		}
		return nil, nil, ErrWrongPassword
	}
	acct := accountFrom(h)
	ok, err := a.pw.Verify(ctx, h["pw"], password)
	if err != nil {
		return nil, nil, err
	}
	if !ok || acct.Disabled {
		return acct, nil, ErrWrongPassword
	}
	return acct, h, nil
}

// secondFactor checks the code against the account's TOTP secret (or its
// recovery codes) and says what the login script must spend: the step, or
// the code's hash. An account without TOTP needs none, unless its realm or
// merchant requires it: then it cannot log in until it enrols. A locked
// second factor takes recovery codes only.
func (a *Accounts) secondFactor(ctx context.Context, acct *Account, secret string, locked bool, code string) (factor, value string, err error) {
	if secret == "" {
		required, err := a.totpRequired(ctx, acct)
		if err != nil {
			return "", "", err
		}
		if required {
			return "", "", ErrTOTPRequired
		}
		return "none", "", nil
	}
	if rc, ok := recoveryForm(code); ok {
		return "recovery", digest(rc), nil
	}
	if locked {
		return "", "", ErrFactorLocked
	}
	step := matchStep(secret, code, a.now())
	if step == 0 {
		return "", "", ErrWrongCode
	}
	return "totp", strconv.FormatUint(step, 10), nil
}

// refused audits a failed login of a known account and answers the one
// error. An unknown account is not audited with what was typed: people
// type passwords into the e-mail field.
func (a *Accounts) refused(ctx context.Context, r LoginRequest, acct *Account, cause error) error {
	var pe *platform.Error
	if !errors.Is(cause, ErrWrongPassword) && !errors.Is(cause, ErrWrongCode) && !errors.Is(cause, ErrTOTPRequired) &&
		!errors.Is(cause, ErrCodeReplayed) && !errors.Is(cause, ErrRecoveryUsed) && !errors.Is(cause, ErrFactorLocked) &&
		!errors.As(cause, &pe) {
		return cause // Redis or hashing failed: not the person's doing
	}
	target, appid := "user:unknown", ""
	if acct != nil {
		target, appid = "user:"+acct.ID, acct.AppID
	}
	e := audit.Entry{At: a.now(), Realm: string(r.Realm), Action: "session.login_failed", Target: target, AppID: appid,
		Source: r.IP.String(), Details: map[string]string{"reason": reason(cause)}}
	if acct != nil {
		e.ActorID, e.ActorEmail, e.Role = acct.ID, acct.Email, string(acct.Role)
	}
	if _, err := a.audit.Append(ctx, e); err != nil {
		a.log.Warn("audit of a failed login not written", "err", err)
	}
	return domain(platform.KindBadCredentials, "wrong e-mail, password or code", errors.Join(ErrBadLogin, cause))
}

// reason is a failed login's cause for the audit log: a fixed word.
func reason(err error) string {
	for _, r := range []struct {
		err  error
		word string
	}{{ErrWrongPassword, "password"}, {ErrWrongCode, "code"}, {ErrCodeReplayed, "code_replayed"},
		{ErrRecoveryUsed, "recovery_code"}, {ErrTOTPRequired, "totp_not_enrolled"}, {ErrFactorLocked, "second_factor_locked"}} {
		if errors.Is(err, r.err) {
			return r.word
		}
	}
	return "other"
}

func loginResult(err error) string {
	var rl *platform.RateLimited
	var pe *platform.Error
	switch {
	case err == nil:
		return resultOK
	case errors.As(err, &rl):
		return resultLimited
	case errors.As(err, &pe) && pe.Kind == platform.KindBadCredentials:
		return resultBad
	}
	return resultError
}
