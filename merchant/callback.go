package merchant

import (
	"context"

	"github.com/paygate/gateway/platform"
)

// Destinations judges where a webhook may go: dispatcher.Destinations,
// under GATEWAY_WEBHOOK_ALLOW_PRIVATE. The dispatcher sits above this
// package, so its address rules come in as an interface.
type Destinations interface {
	Check(ctx context.Context, raw string) error
}

// ValidateCallback is the one rule a merchant's default callback URL passes
// before it is stored, whichever door sets it (the merchant console, the
// operator console, the CLI): the API's form rules (CheckCallback), then the
// dispatcher's address rules, so that a URL every webhook would be refused
// for is refused at once, with the reason. Empty (clear it) passes.
func ValidateCallback(ctx context.Context, dest Destinations, raw string) error {
	if err := CheckCallback(raw); err != nil {
		return platform.Errorf(platform.KindInvalidParameter, "%v", err)
	}
	if raw == "" {
		return nil
	}
	if err := dest.Check(ctx, raw); err != nil {
		return &platform.Error{Kind: platform.KindInvalidParameter, Msg: err.Error(), Err: err}
	}
	return nil
}
