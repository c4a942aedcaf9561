package query

import (
	"context"
	"errors"
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// ErrNotFound is what a read model answers for an order it does not hold.
var ErrNotFound = errors.New("order not found")

// OrderReader is the read model action=order needs: one order by id.
type OrderReader interface {
	Order(ctx context.Context, id string) (*schema.Order, error)
}

// Accounts is the credential check the query side needs.
type Accounts interface {
	AuthQuery(ctx context.Context, appid, key string) (*merchant.Account, error)
}

// Config is what the query side needs to know.
type Config struct {
	PublicURL string
}

// Orders serves GET /api/order.
type Orders struct {
	cfg      Config
	accounts Accounts
	live     OrderReader
	log      *slog.Logger
}

// NewOrders wires the query handler over the live (Redis) read model.
func NewOrders(cfg Config, accounts Accounts, live OrderReader, log *slog.Logger) (*Orders, error) {
	if cfg.PublicURL == "" {
		return nil, errors.New("query: public URL is empty")
	}
	return &Orders{cfg: cfg, accounts: accounts, live: live, log: log}, nil
}

// Serve dispatches on action.
func (q *Orders) Serve(c *fiber.Ctx) error {
	acct, err := q.accounts.AuthQuery(c.UserContext(), c.Query("appid"), c.Query("key"))
	if err != nil {
		return err
	}
	switch action := c.Query("action"); action {
	case "order":
		return q.one(c, acct)
	case "":
		return platform.Errorf(platform.KindMissingParameter, "parameter action is required")
	default:
		return platform.Errorf(platform.KindInvalidParameter, "action %q is not supported (use order)", action)
	}
}

func (q *Orders) one(c *fiber.Ctx, acct *merchant.Account) error {
	id := c.Query("paymentId")
	if id == "" {
		return platform.Errorf(platform.KindMissingParameter, "parameter paymentId is required")
	}
	o, err := q.live.Order(c.UserContext(), id)
	// Another merchant's order is answered exactly like a missing one, so
	// ids of other merchants cannot be probed.
	if errors.Is(err, ErrNotFound) || (err == nil && o.AppID != acct.AppID) {
		return platform.Errorf(platform.KindNotFound, "order %s not found", id)
	}
	if err != nil {
		return err
	}
	return platform.OK(c, schema.View(o, q.cfg.PublicURL))
}
