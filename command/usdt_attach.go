package command

import (
	"context"
	"encoding/json"
	"time"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// Attach is the administrator's answer to a payer whose transfer is held
// elsewhere or was never submitted: hash is put under review on order id
// as if its payer had submitted it, d (who, and a note saying why) is
// appended to the order's history, and the review decides as for any hash
// (the administrator may then approve by hand). The order must be live and
// unpaid on a network; a hash it holds under review, or waiting for an
// administrator, is replaced and its reservation given back. The hash
// itself must be free, or held by an order that no longer holds it: a hash
// another order holds is refused (reject it there first, which releases it).
func (r *USDTReview) Attach(ctx context.Context, id, hash string, d usdt.Decision) (*schema.Order, error) {
	d.Reason = "" // an attach tells the payer nothing; the review will
	return r.attach(ctx, id, hash, d, "1")
}

// attach puts hash on order id for by ("1" an administrator, "m" a move).
func (r *USDTReview) attach(ctx context.Context, id, hash string, d usdt.Decision, by string) (*schema.Order, error) {
	if d.By == "" || d.Note == "" {
		return nil, platform.Errorf(platform.KindInvalidParameter, "an attach names who made it and why (a note)")
	}
	o, err := r.Order(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := attachable(o); err != nil {
		return nil, err
	}
	tx, err := normaliseTxHash(o.Network, hash)
	if err != nil {
		return nil, err
	}
	if o.TxHash == tx && o.Review != usdt.OutcomeWaiting {
		return o, nil // under automatic review with this hash already
	}
	fresh, err := claimTx(ctx, r.store.rdb, o.Network, tx, id)
	if isKind(err, platform.KindConflict) {
		return nil, platform.Errorf(platform.KindConflict, "transaction %s is held by another order: reject it there first", tx)
	}
	if err != nil {
		return nil, err
	}
	now := r.now()
	d.Outcome, d.Hash, d.At = usdt.OutcomeAttached, tx, now.UTC()
	raw, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	applied, previous, err := r.store.putUSDTTx(ctx, id, o.Network, tx, now, now.Add(r.reviewWindow()), by, raw)
	if err != nil || !applied {
		if fresh {
			_ = releaseTx(context.WithoutCancel(ctx), r.store.rdb, o.Network, tx, id)
		}
		if err != nil {
			return nil, err
		}
		return nil, platform.Errorf(platform.KindConflict, "order %s changed meanwhile; look at it again", id)
	}
	if previous != "" && previous != tx {
		if err := releaseTx(context.WithoutCancel(ctx), r.store.rdb, o.Network, previous, id); err != nil {
			return nil, err
		}
	}
	return r.store.Get(ctx, id)
}

// attachable: a live, unpaid usdt_direct order with a network.
func attachable(o *schema.Order) error {
	switch {
	case o.Status == schema.StatusPaid:
		return platform.Errorf(platform.KindConflict, "order %s is paid already", o.ID)
	case o.Status != schema.StatusReady:
		return platform.Errorf(platform.KindConflict, "order %s is %s: only a live order can take a transaction", o.ID, o.Status)
	case o.Network == "":
		return platform.Errorf(platform.KindInvalidParameter, "order %s has no network chosen", o.ID)
	}
	return nil
}

// reviewWindow is how long an attached order stays live for its review.
func (r *USDTReview) reviewWindow() time.Duration {
	if r.window > 0 {
		return r.window
	}
	return DefaultUSDTReviewWindow
}

// WithWindow sets how long an attached order stays live for its review
// (the process's GATEWAY_USDT_REVIEW_WINDOW).
func (r *USDTReview) WithWindow(d time.Duration) *USDTReview {
	r.window = d
	return r
}
