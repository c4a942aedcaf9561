package command

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// The scripts of a balance transfer's steps (balance_pay.go), one shard each.
var (
	//go:embed scripts/transfer_claim.lua
	xferClaimLua string
	//go:embed scripts/transfer_finish.lua
	xferFinishLua string
)

// transferScripts are the claim's and the finish's scripts, held by the
// Store; the money moves are journal transactions.
type transferScripts struct {
	xferClaim, xferFinish *redis.Script
}

func newTransferScripts() transferScripts {
	return transferScripts{xferClaim: redis.NewScript(schema.OrderLua() + xferClaimLua), xferFinish: redis.NewScript(xferFinishLua)}
}

func (x *transfer) parseAmount(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return fmt.Errorf("transfer of order %s: amount %q", x.orderID, s)
	}
	x.amount = schema.Amount(n)
	return nil
}

// loadTransfer reads a claim back for the recovery; nil when it is gone.
func (h *transfers) loadTransfer(ctx context.Context, s schema.Shard, orderID string) (*transfer, error) {
	c, err := h.store.rdb.HGetAll(ctx, schema.TransferKey(s, orderID)).Result()
	if err != nil {
		return nil, fmt.Errorf("read transfer of order %s: %w", orderID, err)
	}
	if len(c) == 0 {
		return nil, nil
	}
	x := &transfer{orderID: orderID, shard: s, payer: c["payer"], merchant: c["merchant"], attempt: c["attempt"],
		currency: c["cur"], state: c["state"]}
	return x, x.parseAmount(c["amt"])
}

// xferDebit is step 1: the payer's available balance into transit, once
// per attempt (journal.BalanceDebitTx). It returns the attempt's state as
// the journal holds it: 'd' debited, 'n' refused (balance short, recorded so
// a released attempt can never debit later), 'r' debited and given back.
func (h *transfers) xferDebit(ctx context.Context, x *transfer) (string, error) {
	res, err := h.store.journal.Post(ctx, journal.BalanceDebitTx(x.payer, x.orderID, x.attempt, x.currency, x.amount, h.now()))
	if err != nil {
		return "", fmt.Errorf("debit payer of order %s: %w", x.orderID, err)
	}
	if res.Outcome == journal.Refused {
		return "n", nil
	}
	rev, err := h.store.journal.Posted(ctx, x.payer, journal.BalanceRevertTx(x.payer, x.orderID, x.attempt, x.currency, x.amount, h.now()).Key)
	if err != nil {
		return "", fmt.Errorf("debit payer of order %s: %w", x.orderID, err)
	}
	if rev {
		return "r", nil
	}
	return "d", nil
}

// xferPay is step 2: the order paid with its event, or found paid. ours
// tells a payment by balance (only a transfer sets paidWithBalance on an
// order that awaited a login, and its claim admits one payer) from one by
// any other way.
func (h *transfers) xferPay(ctx context.Context, x *transfer) (o *schema.Order, ours bool, err error) {
	moved, err := h.store.Transition(ctx, x.orderID, schema.StatusPaid, h.now(),
		schema.FPaidBalance, "1", schema.FNextAction, "")
	if errors.Is(err, ErrOrderNotFound) {
		// Only a final order leaves Redis, after the retention: whether it
		// was paid by this transfer cannot be told any more.
		return nil, false, fmt.Errorf("order %s of a debited transfer is gone; needs an operator", x.orderID)
	}
	if err != nil {
		return nil, false, err
	}
	if moved {
		h.m.moves.WithLabelValues(schema.StatusPaid.String()).Inc()
	}
	o, err = h.store.Get(ctx, x.orderID)
	if err != nil {
		return nil, false, err
	}
	return o, o.Status == schema.StatusPaid && o.PaidWithBalance, nil
}

// xferCredit is step 3: the order's payment from transit, posted at once
// (a balance payment settles at once); the ledger role posts the same key
// later and moves nothing.
func (h *transfers) xferCredit(ctx context.Context, x *transfer, o *schema.Order) error {
	if o == nil {
		var err error
		if o, err = h.store.Get(ctx, x.orderID); err != nil {
			return err
		}
	}
	t, err := h.terms(ctx, o.AppID)
	if err != nil {
		return err
	}
	tx, err := journal.PaymentTx(o, t, journal.Transit, true)
	if err != nil {
		return fmt.Errorf("credit merchant of order %s: %w", x.orderID, err)
	}
	if _, err := h.store.journal.Post(ctx, tx); err != nil {
		return fmt.Errorf("credit merchant of order %s: %w", x.orderID, err)
	}
	return nil
}

// terms are appid's ledger terms (the default for an account without).
func (h *transfers) terms(ctx context.Context, appid string) (merchant.Terms, error) {
	a, err := h.accounts.Lookup(ctx, appid)
	if err != nil {
		return merchant.Terms{}, fmt.Errorf("terms of merchant %s: %w", appid, err)
	}
	return a.Terms, nil
}

// xferRefund gives the payer's debit back when the order was paid some
// other way: once, and only if it was debited.
func (h *transfers) xferRefund(ctx context.Context, x *transfer) error {
	_, err := h.store.journal.Post(ctx, journal.BalanceRevertTx(x.payer, x.orderID, x.attempt, x.currency, x.amount, h.now()))
	if err != nil {
		return fmt.Errorf("refund payer of order %s: %w", x.orderID, err)
	}
	return nil
}

// xferFinish is step 4, or the release of a refused attempt.
func (h *transfers) xferFinish(ctx context.Context, x *transfer, outcome string) error {
	keep := min(h.store.retention, transferMemory)
	keys := []string{schema.TransferKey(x.shard, x.orderID), schema.TransfersKey(x.shard)}
	err := h.store.xferFinish.Run(ctx, h.store.rdb, keys, x.orderID, x.attempt, outcome, int64(keep/time.Second)).Err()
	if err != nil {
		return fmt.Errorf("finish transfer of order %s: %w", x.orderID, err)
	}
	x.state = outcome
	return nil
}
