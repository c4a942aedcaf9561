package dispatcher

import (
	"context"
	"fmt"

	"github.com/paygate/gateway/merchant"
)

// KeyLookup gives the API key a merchant's webhooks are signed with now.
// It is asked at every attempt, so a rotated key signs the next retry.
type KeyLookup interface {
	APIKey(ctx context.Context, appid string) (string, error)
}

// AccountKeys adapts an account lookup to KeyLookup: a *merchant.Directory's
// Lookup (cached, what serve uses) or a *merchant.Store's Get.
type AccountKeys func(ctx context.Context, appid string) (*merchant.Account, error)

// APIKey returns the account's current API key.
func (f AccountKeys) APIKey(ctx context.Context, appid string) (string, error) {
	a, err := f(ctx, appid)
	if err != nil {
		return "", fmt.Errorf("merchant %s: %w", appid, err)
	}
	return a.APIKey, nil
}
