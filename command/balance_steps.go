package command

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// The scripts of a balance transfer's steps (balance_pay.go), one shard each.
var (
	//go:embed scripts/transfer_claim.lua
	xferClaimLua string
	//go:embed scripts/transfer_debit.lua
	xferDebitLua string
	//go:embed scripts/transfer_refund.lua
	xferRefundLua string
	//go:embed scripts/transfer_credit.lua
	xferCreditLua string
	//go:embed scripts/transfer_finish.lua
	xferFinishLua string
)

// transferScripts are the steps' scripts, held by the Store.
type transferScripts struct {
	xferClaim, xferDebit, xferRefund, xferCredit, xferFinish *redis.Script
}

func newTransferScripts() transferScripts {
	return transferScripts{
		xferClaim: redis.NewScript(xferClaimLua), xferDebit: redis.NewScript(xferDebitLua),
		xferRefund: redis.NewScript(xferRefundLua), xferCredit: redis.NewScript(xferCreditLua),
		xferFinish: redis.NewScript(xferFinishLua),
	}
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

// xferDebit is step 1; it returns the attempt's marker.
func (h *transfers) xferDebit(ctx context.Context, x *transfer) (string, error) {
	keys := []string{schema.BalanceKey(x.payer), schema.LedgerKey(x.payer), schema.TransferDebitKey(x.payer, x.orderID, x.attempt)}
	m, err := h.store.xferDebit.Run(ctx, h.store.rdb, keys, x.currency, int64(x.amount), h.now().UnixMilli(),
		x.orderID, int64(transferMemory/time.Second)).Text()
	if err != nil {
		return "", fmt.Errorf("debit payer of order %s: %w", x.orderID, err)
	}
	return m, nil
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

// xferCredit is step 3.
func (h *transfers) xferCredit(ctx context.Context, x *transfer) error {
	keys := []string{schema.BalanceKey(x.merchant), schema.LedgerKey(x.merchant), schema.TransferCreditKey(x.merchant, x.orderID)}
	err := h.store.xferCredit.Run(ctx, h.store.rdb, keys, x.currency, int64(x.amount), h.now().UnixMilli(),
		x.orderID, int64(transferMemory/time.Second)).Err()
	if err != nil {
		return fmt.Errorf("credit merchant of order %s: %w", x.orderID, err)
	}
	return nil
}

// xferRefund gives the payer's debit back when the order was paid some
// other way.
func (h *transfers) xferRefund(ctx context.Context, x *transfer) error {
	keys := []string{schema.BalanceKey(x.payer), schema.LedgerKey(x.payer), schema.TransferDebitKey(x.payer, x.orderID, x.attempt)}
	err := h.store.xferRefund.Run(ctx, h.store.rdb, keys, x.currency, int64(x.amount), h.now().UnixMilli(), x.orderID).Err()
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
