package command

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// A payer who logged in at /merchant/login pays an order of another
// merchant from the payer's own balance (SPEC.md's balance method). The
// payer's balance, the order and the merchant's balance live on three
// different shards, so no one script can move the money. It is a saga of
// scripts, each on one shard and each guarded by a key of that shard named
// by the order, so that any step can run again and change nothing:
//
//  0. claim, on the order's shard: the payer and a fresh attempt id, and the
//     order id in the shard's recovery index;
//  1. debit the payer, on the payer's home shard, once per attempt; a
//     balance that falls short is recorded as refused and the claim released;
//  2. pay the order, on its shard: the one transition to paid with its paid
//     event, marked paidWithBalance; if the order was paid some other way
//     meanwhile, the payer gets the debit back instead (once);
//  3. credit the merchant, on its home shard, once per order;
//  4. finish: record the outcome on the claim, leave the recovery index.
//
// A request that dies between steps leaves its order in the index, and the
// TransferRecovery drives it from wherever it stopped. The original request
// and the recovery may run the same steps at once: the markers make the
// second run of each a no-op, so nobody is debited or credited twice.

// Transfer steps, as the test hook names them.
const (
	stepClaim = iota
	stepDebit
	stepPaid
	stepCredit
	stepFinish
)

// transferMemory is how long the debit and credit markers are kept. A
// transfer is normally finished within a second and recovered within the
// recovery's grace; one left open longer than this (recovery down for a
// month) could be debited again, so the recovery logs every transfer it
// finds older than a day.
const transferMemory = 30 * 24 * time.Hour

// Claim states.
const (
	claimOpen     = "open"
	claimPaid     = "paid"
	claimRefunded = "refunded"
	claimReleased = "released"
	claimGone     = "gone" // the recovery's word for an index entry without its claim
)

// transfer is one claim: everything a step needs, read back from the
// order's shard, so that the recovery needs nothing else.
type transfer struct {
	orderID  string
	shard    schema.Shard
	payer    string
	merchant string
	attempt  string
	amount   schema.Amount
	currency string
	state    string
}

// BalancePay is paying an order from a payer's balance: the payer's
// checks, then the transfer's saga (transfers).
type BalancePay struct {
	accounts Accounts
	store    *Store
	xfer     *transfers
	m        *metrics
}

// transfers runs the steps of balance transfers, for BalancePay, the
// balance refunds (Refunds) and the TransferRecovery alike.
type transfers struct {
	store     *Store
	accounts  Accounts // the merchants' terms
	m         *metrics
	now       func() time.Time
	afterStep func(step int) error // tests: an error stands for the process dying after a step
}

// PayWithBalance pays order orderID, which awaits a balance login
// (schema.NextBalanceLogin), from payerAppID's balance in the order's
// currency, and returns the paid order. Repeating it for the same payer is
// safe and returns the paid order again.
func (h *BalancePay) PayWithBalance(ctx context.Context, orderID, payerAppID string) (o *schema.Order, err error) {
	defer func() { h.m.transfers.WithLabelValues(transferResult(err)).Inc() }()
	o, err = h.store.Get(ctx, orderID)
	if err != nil {
		return nil, err
	}
	if err := h.checkPayer(ctx, o, payerAppID); err != nil {
		return nil, err
	}
	x, err := h.xfer.claim(ctx, o, payerAppID)
	if err != nil {
		return nil, err
	}
	if err := h.xfer.after(stepClaim); err != nil {
		return nil, err
	}
	return h.xfer.drive(ctx, x)
}

// checkPayer is the payer's side of the rules: an enabled account of the
// order's mode, other than the order's own merchant.
func (h *BalancePay) checkPayer(ctx context.Context, o *schema.Order, payer string) error {
	a, err := h.accounts.Lookup(ctx, payer)
	if errors.Is(err, merchant.ErrNotFound) {
		return platform.Errorf(platform.KindForbidden, "no such payer account")
	}
	if err != nil {
		return fmt.Errorf("look up payer: %w", err)
	}
	switch {
	case a.Disabled:
		return platform.Errorf(platform.KindForbidden, "the payer account is disabled")
	case a.AppID == o.AppID:
		return platform.Errorf(platform.KindForbidden, "a merchant cannot pay its own order from its balance")
	case a.Sandbox != o.Sandbox:
		return platform.Errorf(platform.KindForbidden, "a %s account cannot pay a %s order", mode(a.Sandbox), mode(o.Sandbox))
	}
	return nil
}

// claim is step 0.
func (h *transfers) claim(ctx context.Context, o *schema.Order, payer string) (*transfer, error) {
	shard, _ := schema.ParseOrderID(o.ID)
	keys := []string{schema.TransferKey(shard, o.ID), schema.OrderKey(shard, o.ID), schema.TransfersKey(shard)}
	res, err := h.store.xferClaim.Run(ctx, h.store.rdb, keys, payer, rand.Text(), h.now().UnixMilli(), o.ID,
		schema.NextBalanceLogin, string(schema.MethodBalance)).Slice()
	if err != nil {
		return nil, fmt.Errorf("claim order %s: %w", o.ID, err)
	}
	switch code, _ := res[0].(int64); code {
	case 0:
		return nil, platform.Errorf(platform.KindConflict, "order %s is being paid by another account", o.ID)
	case -1:
		return nil, orderNotFound(o.ID)
	case -2:
		return nil, platform.Errorf(platform.KindConflict, "order %s is %s and awaits no balance payment", o.ID, o.Status)
	}
	str := func(i int) string { s, _ := res[i].(string); return s }
	x := &transfer{orderID: o.ID, shard: shard, payer: payer, attempt: str(1), state: str(2), merchant: str(3), currency: str(5)}
	if err := x.parseAmount(str(4)); err != nil {
		return nil, err
	}
	return x, nil
}

// drive runs the steps after the claim, each of which may have run before.
func (h *transfers) drive(ctx context.Context, x *transfer) (*schema.Order, error) {
	switch x.state {
	case claimPaid:
		return h.store.Get(ctx, x.orderID)
	case claimRefunded:
		return nil, paidElsewhere(x)
	}
	debit, err := h.xferDebit(ctx, x)
	if err != nil {
		return nil, err
	}
	switch debit {
	case "n":
		if err := h.xferFinish(ctx, x, claimReleased); err != nil {
			return nil, err
		}
		return nil, platform.Errorf(platform.KindInsufficientFunds, "your %s balance does not cover %s %s", x.currency, x.amount, x.currency)
	case "r":
		return nil, h.refundAndFinish(ctx, x)
	}
	if err := h.after(stepDebit); err != nil {
		return nil, err
	}
	o, ours, err := h.xferPay(ctx, x)
	if err != nil {
		return nil, err
	}
	if err := h.after(stepPaid); err != nil {
		return nil, err
	}
	if !ours {
		return nil, h.refundAndFinish(ctx, x)
	}
	if err := h.xferCredit(ctx, x, o); err != nil {
		return nil, err
	}
	if err := h.after(stepCredit); err != nil {
		return nil, err
	}
	if err := h.xferFinish(ctx, x, claimPaid); err != nil {
		return nil, err
	}
	return o, nil
}

// refundAndFinish ends a transfer whose order was paid some other way.
func (h *transfers) refundAndFinish(ctx context.Context, x *transfer) error {
	if err := h.xferRefund(ctx, x); err != nil {
		return err
	}
	if err := h.xferFinish(ctx, x, claimRefunded); err != nil {
		return err
	}
	return paidElsewhere(x)
}

func paidElsewhere(x *transfer) error {
	return platform.Errorf(platform.KindConflict, "order %s was paid another way; your balance was not charged", x.orderID)
}

// after is the test hook: an error there stands for the process dying.
func (h *transfers) after(step int) error {
	if h.afterStep == nil {
		return nil
	}
	return h.afterStep(step)
}

func transferResult(err error) string {
	if err == nil {
		return "paid"
	}
	if k := platform.KindOf(err); k != "" {
		return string(k)
	}
	return "error"
}
