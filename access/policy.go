package access

import (
	"context"
	_ "embed"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
)

var (
	//go:embed scripts/policy.lua
	policyLua    string
	policyScript = audit.Script(policyLua)
)

// RequireTOTP sets whether every user of merchant appid must use TOTP
// (owners decide). Turning it on ends the sessions of users without TOTP;
// they need a new setup link to enrol.
func (t *Team) RequireTOTP(ctx context.Context, actor Actor, appid string, on bool) error {
	if appid == "" {
		return domain(platform.KindInvalidParameter, "appid is required", nil)
	}
	if err := authorize(actor, RealmMerchant, appid); err != nil {
		return err
	}
	e := t.a.entry(actor, "merchant.require_totp", "merchant:"+appid, appid, map[string]string{"require_totp": flag(on)})
	keys := []string{policyKey(appid), membersKey(RealmMerchant, appid), auditKey()}
	_, err := t.a.run(ctx, policyScript, keys, []any{flag(on), userPrefix, sessionPrefix, sessionsPrefix}, e)
	return err
}

// TOTPRequired says whether merchant appid requires TOTP of every user.
func (a *Accounts) TOTPRequired(ctx context.Context, appid string) (bool, error) {
	v, err := a.rdb.HGet(ctx, policyKey(appid), "requireTotp").Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return false, fmt.Errorf("read merchant TOTP policy: %w", err)
	}
	return v == "1", nil
}

// totpRequired: operators always need TOTP; a merchant user when its
// merchant says so.
func (a *Accounts) totpRequired(ctx context.Context, acct *Account) (bool, error) {
	if acct.Realm == RealmOperator {
		return true, nil
	}
	return a.TOTPRequired(ctx, acct.AppID)
}
