package command

import (
	"context"
	"errors"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
)

// Config is what the command side needs to know.
type Config struct {
	PublicURL      string         // {base_url} of every address we return
	OrderTTL       time.Duration  // how long an unpaid order stays payable
	OrderRetention time.Duration  // how long Redis keeps a finished order
	CreateLimit    platform.Limit // default per-merchant createorder limit
	QueryLimit     platform.Limit // default per-merchant limit of the sandbox driver
}

// Validate checks c.
func (c Config) Validate() error {
	if c.PublicURL == "" {
		return errors.New("command: public URL is empty")
	}
	if c.OrderTTL <= 0 || c.OrderRetention <= 0 {
		return errors.New("command: order TTL and retention must be positive")
	}
	if c.CreateLimit.PerSecond <= 0 || c.QueryLimit.PerSecond <= 0 {
		return errors.New("command: rate limits must be positive")
	}
	return nil
}

// Accounts is the account lookup the command side needs.
type Accounts interface {
	Lookup(ctx context.Context, appid string) (*merchant.Account, error)
	AuthQuery(ctx context.Context, appid, key string) (*merchant.Account, error)
}
