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
	"github.com/paygate/gateway/usdt"
)

//go:embed scripts/usdt_submit.lua
var usdtSubmitLua string

var usdtSubmitScript = redis.NewScript(usdtSubmitLua)

// SubmitTxHash records the transaction hash the payer of usdt_direct order
// id sent the payableAmount with, on the network chosen, and puts the order
// under review (NextAction schema.NextUSDTReview, status still ready, due
// at once in its shard's review queue): the review, not the payer, decides
// from then on. The hash is reserved across all orders first, because the
// reservation key names no shard and cannot share the order's script.
//
// A hash pays one order, ever, and it is the order the transfer pays: the
// reservation (no expiry) belongs to the order that holds the hash, under
// review, waiting for an administrator, paid, or cancelled while holding
// it; any other order submitting it is refused. A review that rejects the
// hash (the transfer's exact amount and address do not make it this
// order's payment) gives the reservation back, so the order the transfer
// does pay can still submit it: a payer who submits someone else's public
// transfer first blocks nobody (usdt_claim.go). A reservation this very
// call made, for an update that then did not apply, is given back too.
// Submitting the hash the order holds again answers the order as it is; an
// order whose review rejected its hash may submit that hash again or
// another.
//
// Expiry: the order's place in the expiry index moves to the end of the
// review window (Config.USDTReviewWindow, a day by default) in the script
// that records the hash, and the sweep cancels only what the index says is
// due (Store.Expire), so a payer who paid and submitted in time never sees
// the order cancelled under them. The order is not taken out of the index
// altogether: an order nobody reviews would then stay live in Redis for
// ever, holding its clientOrderId. Once the window has passed unreviewed it
// is cancelled like any unpaid order, and the review can still pay it late.
// (An administrator's "waiting" takes it out: USDTReview.Escalate.)
func (h *USDTPay) SubmitTxHash(ctx context.Context, id, hash string) (*schema.Order, error) {
	o, err := h.usdtOrder(ctx, id)
	if err != nil {
		return nil, err
	}
	return h.submitTx(ctx, o, hash)
}

// submitTx submits hash for o as last read; o may be stale by now, which
// the reservation and the guarded script settle.
func (h *USDTPay) submitTx(ctx context.Context, o *schema.Order, hash string) (*schema.Order, error) {
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
	fresh, err := h.usdt.ReserveTx(ctx, o.Network, tx, o.ID)
	if err != nil {
		return nil, err
	}
	now := h.now()
	applied, err := h.store.SubmitUSDTTx(ctx, o.ID, o.Network, tx, now, now.Add(h.window))
	if err != nil || !applied {
		return h.lostSubmit(ctx, o, tx, fresh, err)
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
// of it won and this one is a repeat; otherwise a reservation this call
// made (fresh) is given back. One made before (the order held the hash,
// then its review rejected it) stays: the hash stays this order's. When the
// order cannot be read, the reservation stays: it names this order, which
// can still submit the hash again.
func (h *USDTPay) lostSubmit(ctx context.Context, o *schema.Order, tx string, fresh bool, cause error) (*schema.Order, error) {
	cur, err := h.store.Get(ctx, o.ID)
	if err != nil {
		return nil, errors.Join(cause, err)
	}
	if cur.TxHash == tx {
		return cur, nil
	}
	if fresh {
		if err := h.usdt.ReleaseTx(context.WithoutCancel(ctx), o.Network, tx, o.ID); err != nil {
			h.log.Warn("release usdt transaction hash", "order", o.ID, "err", err)
		}
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
	if !usdt.KnownNetwork(network) {
		return "", fmt.Errorf("order network %q is unknown", network)
	}
	if tx == "" {
		return "", platform.Errorf(platform.KindInvalidParameter, "txHash is required")
	}
	if !usdt.ValidTxHash(network, tx) {
		if network == "TRC20" {
			return "", platform.Errorf(platform.KindInvalidParameter, "a TRC20 transaction hash is 64 hexadecimal characters, without 0x")
		}
		return "", platform.Errorf(platform.KindInvalidParameter, "a %s transaction hash is 0x followed by 64 hexadecimal characters", network)
	}
	return tx, nil
}

// ReserveTx holds transaction hash tx on network for order id (no expiry);
// fresh reports that this call made the reservation. A hash held by an
// order that holds it (under review, waiting for an administrator, paid) is
// refused; one held for this order is fine; a stale one is taken over
// (claimTx).
func (u *USDT) ReserveTx(ctx context.Context, network, tx, id string) (fresh bool, err error) {
	return claimTx(ctx, u.rdb, network, tx, id)
}

// ReleaseTx gives back a hash reserved for order id.
func (u *USDT) ReleaseTx(ctx context.Context, network, tx, id string) error {
	return releaseHeld(ctx, u.rdb, schema.USDTTxKey(network, tx), id)
}

// SubmitUSDTTx records hash tx on order id if it is ready, awaits the
// payment and was on network, puts it under review until reviewUntil (its
// expiry) and in its shard's review queue due at once, and emits the
// changed event; applied=false means the order was not as expected and
// nothing was written.
func (s *Store) SubmitUSDTTx(ctx context.Context, id, network, tx string, at, reviewUntil time.Time) (applied bool, err error) {
	applied, _, err = s.putUSDTTx(ctx, id, network, tx, at, reviewUntil, "", nil)
	return applied, err
}

// putUSDTTx runs usdt_submit.lua; by is "" for the payer, "1" for an
// administrator's attach (which may also replace the hash under review:
// previous), "m" for a review's move; record is their decision.
func (s *Store) putUSDTTx(ctx context.Context, id, network, tx string, at, reviewUntil time.Time, by string, record []byte) (applied bool, previous string, err error) {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return false, "", orderNotFound(id)
	}
	keys := []string{schema.OrderKey(shard, id), schema.EventsKey(shard), schema.ExpiryKey(shard),
		schema.USDTReviewsKey(shard), schema.USDTDeskKey(shard), schema.OrderHistoryKey(shard, id)}
	created, _ := schema.OrderIDTime(id)
	res, err := usdtSubmitScript.Run(ctx, s.rdb, keys, network, tx, schema.NextUSDTDirectPay, schema.NextUSDTReview,
		string(schema.EventChanged), at.UnixMilli(), reviewUntil.UnixMilli(), by, record,
		created.Add(s.TTL(schema.MethodUSDTDirect)).UnixMilli(), created.Add(s.TTL(schema.MethodSelect)).UnixMilli(),
		schema.ExpiryBucketPrefix(shard)).Slice()
	if err != nil {
		return false, "", fmt.Errorf("submit usdt transaction of order %s: %w", id, err)
	}
	code, _ := res[0].(int64)
	if code == -1 {
		return false, "", orderNotFound(id)
	}
	if len(res) > 2 {
		previous, _ = res[2].(string)
	}
	return code == 1, previous, nil
}
