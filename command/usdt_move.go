package command

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// Move follows a review that rejected hash on order from because the
// transfer's exact amount, payable, is not that order's: payable amounts
// are unique to their order (USDT.Reserve), so it names the order the
// transfer pays, and the hash is put under review there (d records the
// move), as if that order's payer had submitted it. A payer who submitted
// someone else's public transfer thus hands it to its owner. Only onto a
// live order that awaits a transfer on the same network and holds no hash:
// anything else is left alone (not found, or a conflict), and the review
// there decides as for any hash, so a move can never pay an order the
// transfer does not pay.
func (r *USDTReview) Move(ctx context.Context, from, hash, payable string, d usdt.Decision) (*schema.Order, error) {
	src, err := r.Order(ctx, from)
	if err != nil {
		return nil, err
	}
	id, err := r.store.rdb.Get(ctx, schema.USDTAmountKey(payable)).Result()
	if errors.Is(err, redis.Nil) || id == from {
		return nil, platform.Errorf(platform.KindNotFound, "no other order has payable amount %s", payable)
	}
	if err != nil {
		return nil, fmt.Errorf("read usdt amount reservation: %w", err)
	}
	to, err := r.Order(ctx, id)
	if err != nil {
		return nil, err
	}
	if to.Status != schema.StatusReady || to.NextAction != schema.NextUSDTDirectPay || to.TxHash != "" ||
		to.Network != src.Network || to.PayableAmount != payable {
		return nil, platform.Errorf(platform.KindConflict, "order %s does not await a transfer on %s", id, src.Network)
	}
	d.Note = "moved from order " + from + ": the transfer's exact amount is this order's payable amount"
	return r.attach(ctx, id, hash, d, "m")
}
