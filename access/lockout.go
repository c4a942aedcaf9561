package access

import (
	"context"
	_ "embed"
	"errors"
	"fmt"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
)

var (
	//go:embed scripts/sf_fail.lua
	sfFailLua    string
	sfFailScript = audit.Script(sfFailLua)
	//go:embed scripts/sf_unlock.lua
	sfUnlockLua    string
	sfUnlockScript = audit.Script(sfUnlockLua)
)

// The second factor locks after Config.SecondFactorLimit failures in a row
// that followed a right password. The per-account login limit (5 a minute)
// alone lets someone holding the password try a code every 12 s forever,
// which finds the code of a 6-digit TOTP within a month about half the
// time. Locked, TOTP codes are refused (a right one too) and answered like
// any wrong login; a recovery code still logs in and clears the lock, and
// an owner of the merchant (an admin, for operators) can unlock it. The
// lock is an audit entry of the account itself ("account.second_factor_locked")
// and the consoles show it to those who can unlock it.

func isLocked(v string) bool { return v != "" && v != "0" }

// factorFailed counts a wrong second factor after a right password, and
// locks the second factor at the limit; then it refuses the login as
// refused does. A count that cannot be written is logged, not shown: the
// person is refused all the same.
func (a *Accounts) factorFailed(ctx context.Context, r LoginRequest, acct *Account, cause error) error {
	if errors.Is(cause, ErrWrongCode) || errors.Is(cause, ErrCodeReplayed) || errors.Is(cause, ErrRecoveryUsed) ||
		errors.Is(cause, ErrFactorLocked) {
		actor := Actor{ID: acct.ID, Email: acct.Email, Realm: string(acct.Realm), Role: acct.Role, AppID: acct.AppID, Source: r.IP.String()}
		e := a.entry(actor, "account.second_factor_locked", "user:"+acct.ID, acct.AppID,
			map[string]string{"reason": "wrong second factor", "count": fmt.Sprint(a.cfg.SecondFactorLimit)})
		res, err := a.run(ctx, sfFailScript, []string{userKey(acct.ID), lockedKey(acct.Realm, acct.AppID), auditKey()},
			[]any{acct.ID, a.cfg.SecondFactorLimit, a.now().UnixMilli()}, e)
		switch {
		case err != nil:
			a.log.Warn("count of a wrong second factor not written", "user", acct.ID, "err", err)
		case res.(int64) == 1:
			a.log.Warn("console account's second factor locked", "realm", acct.Realm, "user", acct.ID)
		}
	}
	return a.refused(ctx, r, acct, cause)
}

// UnlockSecondFactor lets account id's TOTP codes work again and starts
// its count over. Who may: whoever may manage the account (its merchant's
// owner, an admin, the CLI).
func (t *Team) UnlockSecondFactor(ctx context.Context, actor Actor, id string) error {
	acct, err := t.a.Get(ctx, id)
	if err != nil {
		return err
	}
	if err := authorize(actor, acct.Realm, acct.AppID); err != nil {
		return err
	}
	e := t.a.entry(actor, "user.unlock_second_factor", "user:"+id, acct.AppID, nil)
	res, err := t.a.run(ctx, sfUnlockScript, []string{userKey(id), lockedKey(acct.Realm, acct.AppID), auditKey()}, []any{id}, e)
	if err != nil {
		return err
	}
	if res.(int64) == 0 {
		return domain(platform.KindConflict, "this account's second factor is not locked", ErrNotLocked)
	}
	return nil
}

// SecondFactorLocks is how many of a merchant's users (realm merchant) or
// of the operators have their second factor locked: the notice the
// owners and admins see on every page.
func (a *Accounts) SecondFactorLocks(ctx context.Context, realm Realm, appid string) (int64, error) {
	n, err := a.rdb.SCard(ctx, lockedKey(realm, appid)).Result()
	if err != nil {
		return 0, fmt.Errorf("count locked second factors: %w", err)
	}
	return n, nil
}
