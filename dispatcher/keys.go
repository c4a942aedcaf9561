package dispatcher

import (
	"context"
	"fmt"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
)

// KeyLookup gives what a merchant's webhooks are signed with now: the API
// key of SPEC.md's MD5 sign (during a key rotation's grace the old one, until
// the merchant confirms the switch: merchant.Account.WebhookKey), and the
// webhook secrets of the modern signature headers. It is asked at every
// attempt, so a rotation, its grace's end or a confirmation signs the next
// retry.
type KeyLookup interface {
	APIKey(ctx context.Context, appid string) (string, error)
	WebhookSecrets(ctx context.Context, appid string) ([]string, error)
}

// AccountLookup reads an account: a *merchant.Directory's Lookup (cached,
// what serve uses) or a *merchant.Store's Get.
type AccountLookup func(ctx context.Context, appid string) (*merchant.Account, error)

// accountKeys is KeyLookup over merchant accounts.
type accountKeys struct {
	lookup AccountLookup
	ensure AccountLookup
	now    func() time.Time
}

// AccountKeys adapts an account lookup to KeyLookup. ensure gives an
// account without a webhook secret its first one (a *merchant.Store's
// EnsureWebhookSecret): accounts made before secrets existed get one at
// their first webhook.
func AccountKeys(lookup, ensure AccountLookup) KeyLookup {
	return AccountKeysAt(time.Now, lookup, ensure)
}

// AccountKeysAt is AccountKeys deciding by now, the process's clock: a
// rotation's grace ends by the clock the rest of the process keeps.
func AccountKeysAt(now platform.Clock, lookup, ensure AccountLookup) KeyLookup {
	return accountKeys{lookup: lookup, ensure: ensure, now: now.Now}
}

// APIKey returns the API key the MD5 sign uses now.
func (k accountKeys) APIKey(ctx context.Context, appid string) (string, error) {
	a, err := k.lookup(ctx, appid)
	if err != nil {
		return "", fmt.Errorf("merchant %s: %w", appid, err)
	}
	return a.WebhookKey(k.now()), nil
}

// WebhookSecrets returns the secrets to sign with now, making the first one
// if the account has none.
func (k accountKeys) WebhookSecrets(ctx context.Context, appid string) ([]string, error) {
	a, err := k.lookup(ctx, appid)
	if err == nil && a.WebhookSecret == "" {
		a, err = k.ensure(ctx, appid)
	}
	if err != nil {
		return nil, fmt.Errorf("merchant %s: %w", appid, err)
	}
	return a.WebhookSecrets(k.now()), nil
}
