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

// The refund scripts: each changes the order, its refunds and the shard's
// pending index together and emits the order's event (DESIGN.md).
var (
	//go:embed scripts/refund_reserve.lua
	refundReserveLua string
	//go:embed scripts/refund_finish.lua
	refundFinishLua string

	refundReserveScript = redis.NewScript(schema.OrderLua() + refundReserveLua)
	refundFinishScript  = redis.NewScript(refundFinishLua)
)

// RefundAsk is one refund as the merchant asked for it. ClientRefundID
// and Reason are optional.
type RefundAsk struct {
	OrderID        string
	Amount         schema.Amount
	ClientRefundID string
	Reason         string
	kind           string // set by Refund: how the money goes back
}

// Reservation verdicts of refund_reserve.lua.
const (
	reserveNew      = 1
	reserveReplay   = 2
	reserveNoOrder  = -1
	reserveNotPaid  = -2
	reserveMismatch = -3
	reserveExceeds  = -4
)

// errRefundGone is a refund (or its order) Redis no longer holds.
var errRefundGone = errors.New("refund or its order is gone")

// reserveRefund runs refund_reserve.lua for a new refund id. It returns the
// verdict, the record when there is one, and the number the verdict
// carries (the order's status, or the amount left to refund).
func (s *Store) reserveRefund(ctx context.Context, id string, a RefundAsk, at time.Time) (int64, *schema.Refund, int64, error) {
	shard, ok := schema.ParseOrderID(a.OrderID)
	if !ok {
		return reserveNoOrder, nil, 0, nil
	}
	keys := []string{schema.OrderKey(shard, a.OrderID), schema.EventsKey(shard), schema.RefundsKey(shard, a.OrderID),
		schema.RefundIndexKey(shard), schema.TransferKey(shard, a.OrderID)}
	res, err := refundReserveScript.Run(ctx, s.rdb, keys, id, int64(a.Amount), a.ClientRefundID, a.Reason,
		at.UnixMilli(), a.kind).Slice()
	if err != nil {
		return 0, nil, 0, fmt.Errorf("reserve refund of order %s: %w", a.OrderID, err)
	}
	code, _ := res[0].(int64)
	if len(res) < 2 {
		return code, nil, 0, nil
	}
	if n, isNum := res[1].(int64); isNum {
		return code, nil, n, nil
	}
	raw, _ := res[1].(string)
	r, err := schema.DecodeRefund(raw)
	if err != nil {
		return 0, nil, 0, err
	}
	return code, &r, 0, nil
}

// finishRefund ends a pending refund as succeeded or failed, once; ended
// is false when it had ended before (the record is then as it ended).
func (s *Store) finishRefund(ctx context.Context, orderID, refundID string, to schema.RefundStatus, at time.Time, why, ref string) (r *schema.Refund, ended bool, err error) {
	shard, ok := schema.ParseOrderID(orderID)
	if !ok {
		return nil, false, errRefundGone
	}
	keys := []string{schema.OrderKey(shard, orderID), schema.EventsKey(shard), schema.RefundsKey(shard, orderID),
		schema.RefundIndexKey(shard)}
	res, err := refundFinishScript.Run(ctx, s.rdb, keys, refundID, string(to), at.UnixMilli(), why, ref).Slice()
	if err != nil {
		return nil, false, fmt.Errorf("finish refund %s: %w", refundID, err)
	}
	code, _ := res[0].(int64)
	if code == -1 {
		return nil, false, errRefundGone
	}
	raw, _ := res[1].(string)
	rec, err := schema.DecodeRefund(raw)
	if err != nil {
		return nil, false, err
	}
	return &rec, code == 1, nil
}

// Refund reads one refund of an order; errRefundGone when there is none.
func (s *Store) Refund(ctx context.Context, orderID, refundID string) (*schema.Refund, error) {
	shard, ok := schema.ParseOrderID(orderID)
	if !ok {
		return nil, errRefundGone
	}
	raw, err := s.rdb.HGet(ctx, schema.RefundsKey(shard, orderID), refundID).Result()
	if errors.Is(err, redis.Nil) {
		return nil, errRefundGone
	}
	if err != nil {
		return nil, fmt.Errorf("read refund %s: %w", refundID, err)
	}
	r, err := schema.DecodeRefund(raw)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// Refunds lists an order's refunds, oldest first.
func (s *Store) Refunds(ctx context.Context, orderID string) ([]schema.Refund, error) {
	shard, ok := schema.ParseOrderID(orderID)
	if !ok {
		return nil, nil
	}
	h, err := s.rdb.HGetAll(ctx, schema.RefundsKey(shard, orderID)).Result()
	if err != nil {
		return nil, fmt.Errorf("read refunds of order %s: %w", orderID, err)
	}
	return schema.DecodeRefunds(h)
}

// dueRefunds lists the shard's pending refunds asked for before until.
func (s *Store) dueRefunds(ctx context.Context, shard schema.Shard, until time.Time, limit int64) ([]string, error) {
	return s.rdb.ZRangeByScore(ctx, schema.RefundIndexKey(shard), &redis.ZRangeBy{
		Min: "-inf", Max: strconv.FormatInt(until.UnixMilli(), 10), Count: limit,
	}).Result()
}
