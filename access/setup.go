package access

import (
	"context"
	"crypto/rand"
	_ "embed"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
)

var (
	//go:embed scripts/finish_setup.lua
	finishSetupLua    string
	finishSetupScript = audit.Script(finishSetupLua)
)

// setupAccount is the account a live setup token is for.
func (a *Accounts) setupAccount(ctx context.Context, token string) (*Account, error) {
	if len(token) != tokenLen {
		return nil, domain(platform.KindForbidden, "this setup link is unknown, used or expired", ErrSetupToken)
	}
	id, err := a.rdb.Get(ctx, setupKey(digest(token))).Result()
	if errors.Is(err, redis.Nil) {
		return nil, domain(platform.KindForbidden, "this setup link is unknown, used or expired", ErrSetupToken)
	}
	if err != nil {
		return nil, fmt.Errorf("read setup link: %w", err)
	}
	h, err := a.rdb.HMGet(ctx, userKey(id), "id", "setupUntil").Result()
	if err != nil {
		return nil, fmt.Errorf("read setup link: %w", err)
	}
	until, _ := h[1].(string)
	if ms, _ := parseInt(until); ms < a.now().UnixMilli() {
		return nil, domain(platform.KindForbidden, "this setup link is unknown, used or expired", ErrSetupToken)
	}
	return a.Get(ctx, id)
}

// BeginSetup answers the setup page: whose link this is, whether TOTP is
// required of them, and a fresh enrolment to show. It does not use the
// token up.
func (a *Accounts) BeginSetup(ctx context.Context, token string) (*Account, *Enrolment, bool, error) {
	acct, err := a.setupAccount(ctx, token)
	if err != nil {
		return nil, nil, false, err
	}
	required, err := a.totpRequired(ctx, acct)
	if err != nil {
		return nil, nil, false, err
	}
	enr, err := a.newEnrolment(acct.Email)
	if err != nil {
		return nil, nil, false, err
	}
	return acct, enr, required, nil
}

// Setup is what the setup page sends back.
type Setup struct {
	// Realm is the console the page is on: a link of the other realm's
	// account is refused as unknown before anything changes, so an
	// operator's link cannot be completed on the public listener.
	Realm      Realm
	Token      string
	Password   string
	TOTPSecret string // the enrolment's secret; "" to enrol none (merchant users, where allowed)
	TOTPCode   string // a code from the authenticator, proving the enrolment
	Source     string // client IP
}

// CompleteSetup uses the setup token once: it sets the password and the
// TOTP enrolment and returns the recovery codes, to be shown once. A
// wrong TOTP code leaves the token usable, so the person can try again;
// so does a token of another realm than s.Realm, refused as unknown.
func (a *Accounts) CompleteSetup(ctx context.Context, s Setup) (*Account, []string, error) {
	acct, err := a.setupAccount(ctx, s.Token)
	if err != nil {
		return nil, nil, err
	}
	if acct.Realm != s.Realm {
		return nil, nil, domain(platform.KindForbidden, "this setup link is unknown, used or expired", ErrSetupToken)
	}
	required, err := a.totpRequired(ctx, acct)
	if err != nil {
		return nil, nil, err
	}
	var step uint64
	if s.TOTPSecret != "" {
		if step = matchStep(s.TOTPSecret, s.TOTPCode, a.now()); step == 0 {
			return nil, nil, domain(platform.KindBadCredentials, "the code does not match; check the device's clock and try again", ErrWrongCode)
		}
	} else if required {
		return nil, nil, domain(platform.KindInvalidParameter, "TOTP is required for this account", ErrTOTPRequired)
	}
	hash, err := a.pw.Hash(ctx, s.Password)
	if err != nil {
		return nil, nil, domain(platform.KindInvalidParameter, err.Error(), err)
	}
	var codes, hashes []string
	if s.TOTPSecret != "" {
		codes, hashes = newRecoveryCodes(a.cfg.RecoveryCodes)
	}
	args := []any{acct.ID, hash, rand.Text(), s.TOTPSecret, strconv.FormatUint(step, 10), sessionPrefix, a.now().UnixMilli(), len(hashes)}
	for _, h := range hashes {
		args = append(args, h)
	}
	actor := Actor{ID: acct.ID, Email: acct.Email, Realm: string(acct.Realm), Role: acct.Role, AppID: acct.AppID, Source: s.Source}
	e := a.entry(actor, "user.setup", "user:"+acct.ID, acct.AppID, map[string]string{"result": totpResult(s.TOTPSecret != "")})
	keys := []string{setupKey(digest(s.Token)), userKey(acct.ID), recoveryKey(acct.ID), sessionsKey(acct.ID), auditKey(),
		lockedKey(acct.Realm, acct.AppID)}
	res, err := a.run(ctx, finishSetupScript, keys, args, e)
	if err != nil {
		return nil, nil, err
	}
	if res.(int64) == 0 {
		return nil, nil, domain(platform.KindForbidden, "this setup link is unknown, used or expired", ErrSetupToken)
	}
	acct, err = a.Get(ctx, acct.ID)
	return acct, codes, err
}

func totpResult(enrolled bool) string {
	if enrolled {
		return "password and totp set"
	}
	return "password set"
}
