package reviewer

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// Orders is what the reviewer needs of the command side. Approve, Reject and
// Escalate change the order, append d to its history and remove it from its
// shard's review queue, all in one script; hash is the transaction the
// review was about, so an outcome for a hash the order no longer carries is
// refused. Each is safe to repeat: once the order has moved on (paid,
// decided, paid another way, expired) it answers a platform error of kind
// KindConflict (or KindNotFound once the order is gone), which the reviewer
// takes as "nothing left to do".
//
// RescheduleUSDT moves the order's queue score to due, and only if it is
// still queued (ZADD XX): a review that was decided meanwhile stays out.
// ProgressUSDT records where the review stands (schema.USDTProgress), for
// the payer, the merchant and the desk; refused (conflict) once decided.
type Orders interface {
	Order(ctx context.Context, id string) (*schema.Order, error)
	ApproveUSDT(ctx context.Context, id, hash string, d usdt.Decision) (*schema.Order, error)
	RejectUSDT(ctx context.Context, id, hash string, d usdt.Decision) (*schema.Order, error)
	EscalateUSDT(ctx context.Context, id, hash string, d usdt.Decision) (*schema.Order, error)
	RescheduleUSDT(ctx context.Context, id string, due time.Time) error
	ProgressUSDT(ctx context.Context, id, hash string, p schema.USDTProgress) error
	// MoveUSDT puts a hash rejected on order from (wrong amount) under
	// review on the order whose payable amount the transfer carries, if
	// that order awaits a transfer; not found or a conflict otherwise.
	MoveUSDT(ctx context.Context, from, hash, payable string, d usdt.Decision) (*schema.Order, error)
}

// Networks are the USDT networks as configured (data, reloaded without a
// restart): each review asks afresh, for the order's mode (sandbox orders
// are reviewed against the sandbox's networks).
type Networks interface {
	Lookup(name string, sandbox bool) (usdt.Network, bool)
}

// Backends are the clients of the chains and the exchange, live or
// sandbox (the simulators) as the order is.
type Backends interface {
	Chain(sandbox bool, network string) (usdt.Chain, bool)
	Exchange(sandbox bool) (usdt.Exchange, bool)
}

// Deps are what a reviewer works with.
type Deps struct {
	// Redis holds the review queues (schema.USDTReviewsKey); the reviewer
	// runs its claim and drop scripts on them.
	Redis    redis.Scripter
	Orders   Orders
	Networks Networks
	Backends Backends
	// Waiting counts the orders waiting for an administrator (the desk's
	// index), for the gateway_usdt_reviews_waiting gauge. Optional: without
	// it the gauge is not exported by this process.
	Waiting func(ctx context.Context) (int, error)
}

func (d Deps) check() error {
	if d.Redis == nil || d.Orders == nil || d.Networks == nil || d.Backends == nil {
		return errors.New("reviewer: redis, orders, networks and backends are required")
	}
	return nil
}
