package command

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

//go:embed scripts/usdt_submit.lua
var usdtSubmitLua string

var usdtSubmitScript = redis.NewScript(usdtSubmitLua)

// usdtTxHold is how long a submitted transaction hash stays reserved: past
// any order's life and any review, so one transfer never pays two orders.
const usdtTxHold = 400 * 24 * time.Hour

// SubmitTxHash records the transaction hash the payer of usdt_direct order
// id sent the payableAmount with, on the network chosen, and puts the order
// under review (NextAction schema.NextUSDTReview, status still ready): the
// review, not the payer, decides from then on. The hash is reserved across
// all orders first, because the reservation key names no shard and cannot
// share the order's script; an update that then loses gives it back.
// Submitting the hash the order holds again answers the order as it is.
//
// Expiry: the order's place in the expiry index moves to the end of the
// review window (Config.USDTReviewWindow, a day by default) in the script
// that records the hash, and the sweep cancels only what the index says is
// due (Store.Expire), so a payer who paid and submitted in time never sees
// the order cancelled under them. The order is not taken out of the index
// altogether: an order nobody reviews would then stay live in Redis for
// ever, holding its clientOrderId. Once the window has passed unreviewed it
// is cancelled like any unpaid order, and the review can still pay it late.
func (h *CreateOrder) SubmitTxHash(ctx context.Context, id, hash string) (*schema.Order, error) {
	o, err := h.usdtOrder(ctx, id)
	if err != nil {
		return nil, err
	}
	return h.submitTx(ctx, o, hash)
}

// submitTx submits hash for o as last read; o may be stale by now, which
// the reservation and the guarded script settle.
func (h *CreateOrder) submitTx(ctx context.Context, o *schema.Order, hash string) (*schema.Order, error) {
	if o.TxHash != "" {
		return resubmitted(o, hash)
	}
	if err := awaitingUSDT(o); err != nil {
		return nil, err
	}
	if o.Network == "" {
		return nil, platform.Errorf(platform.KindInvalidParameter, "choose a network first")
	}
	tx, err := normaliseTxHash(o.Network, hash)
	if err != nil {
		return nil, err
	}
	if err := h.usdt.ReserveTx(ctx, o.Network, tx, o.ID); err != nil {
		return nil, err
	}
	now := h.now()
	applied, err := h.store.SubmitUSDTTx(ctx, o.ID, o.Network, tx, now, now.Add(h.cfg.reviewWindow()))
	if err != nil || !applied {
		return h.lostSubmit(ctx, o, tx, err)
	}
	return h.store.Get(ctx, o.ID)
}

// resubmitted answers a submit to an order that holds a hash already: the
// same hash is a repeat, another one is refused.
func resubmitted(o *schema.Order, hash string) (*schema.Order, error) {
	tx, err := normaliseTxHash(o.Network, hash)
	if err != nil {
		return nil, err
	}
	if tx != o.TxHash {
		return nil, platform.Errorf(platform.KindConflict, "order %s has transaction hash %s already; it cannot be changed", o.ID, o.TxHash)
	}
	return o, nil
}

// lostSubmit follows an update that did not apply (or whose outcome is
// unknown): when the order holds this hash after all, a concurrent submit
// of it won and this one is a repeat; otherwise the reservation is given
// back. When the order cannot be read, the reservation stays: it names
// this order, which can still submit the hash again.
func (h *CreateOrder) lostSubmit(ctx context.Context, o *schema.Order, tx string, cause error) (*schema.Order, error) {
	cur, err := h.store.Get(ctx, o.ID)
	if err != nil {
		return nil, errors.Join(cause, err)
	}
	if cur.TxHash == tx {
		return cur, nil
	}
	if err := h.usdt.ReleaseTx(context.WithoutCancel(ctx), o.Network, tx, o.ID); err != nil {
		h.log.Warn("release usdt transaction hash", "order", o.ID, "err", err)
	}
	if cause != nil {
		return nil, cause
	}
	if cur.TxHash != "" {
		return resubmitted(cur, tx)
	}
	return nil, platform.Errorf(platform.KindConflict, "order %s changed meanwhile (now %s, network %q); reload and submit again", o.ID, cur.Status, cur.Network)
}

// normaliseTxHash checks a hash as network writes them and gives it in
// lower case, the one form a hash is stored and reserved under.
func normaliseTxHash(network, hash string) (string, error) {
	tx := strings.ToLower(strings.TrimSpace(hash))
	c, ok := usdtChains[network]
	if !ok {
		return "", fmt.Errorf("order network %q is unknown", network)
	}
	if tx == "" {
		return "", platform.Errorf(platform.KindInvalidParameter, "txHash is required")
	}
	if !c.tx(tx) {
		if network == "TRC20" {
			return "", platform.Errorf(platform.KindInvalidParameter, "a TRC20 transaction hash is 64 hexadecimal characters, without 0x")
		}
		return "", platform.Errorf(platform.KindInvalidParameter, "a %s transaction hash is 0x followed by 64 hexadecimal characters", network)
	}
	return tx, nil
}

// ReserveTx holds transaction hash tx on network for order id; a hash
// another order holds is refused, one this order holds is fine.
func (u *USDT) ReserveTx(ctx context.Context, network, tx, id string) error {
	key := schema.USDTTxKey(network, tx)
	ok, err := u.rdb.SetNX(ctx, key, id, usdtTxHold).Result()
	if err != nil {
		return fmt.Errorf("reserve usdt transaction hash: %w", err)
	}
	if ok {
		return nil
	}
	holder, err := u.rdb.Get(ctx, key).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("read usdt transaction hash: %w", err)
	}
	if holder != id {
		return platform.Errorf(platform.KindConflict, "this transaction hash was already submitted")
	}
	return nil
}

// ReleaseTx gives back a hash reserved for order id.
func (u *USDT) ReleaseTx(ctx context.Context, network, tx, id string) error {
	return releaseHeld(ctx, u.rdb, schema.USDTTxKey(network, tx), id)
}

// SubmitUSDTTx records hash tx on order id if it is ready, awaits the
// payment and was on network, puts it under review until reviewUntil (its
// expiry), and emits the changed event; applied=false means the order was
// not as expected and nothing was written.
func (s *Store) SubmitUSDTTx(ctx context.Context, id, network, tx string, at, reviewUntil time.Time) (applied bool, err error) {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return false, ErrOrderNotFound
	}
	keys := []string{schema.OrderKey(shard, id), schema.EventsKey(shard), schema.ExpiryKey(shard)}
	res, err := usdtSubmitScript.Run(ctx, s.rdb, keys, network, tx, schema.NextUSDTDirectPay, schema.NextUSDTReview,
		string(schema.EventChanged), at.UnixMilli(), reviewUntil.UnixMilli()).Int64Slice()
	if err != nil {
		return false, fmt.Errorf("submit usdt transaction of order %s: %w", id, err)
	}
	if res[0] == -1 {
		return false, ErrOrderNotFound
	}
	return res[0] == 1, nil
}
