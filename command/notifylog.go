package command

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// notificationLog keeps every notification with its verdict: on its order
// (bounded, as long as the order is kept) or, when it named no order of
// ours, on a bounded list of refusals.
type notificationLog struct {
	rdb  redis.UniversalClient
	keep time.Duration
}

const (
	notificationsPerOrder = 100
	refusedKept           = 1000
)

func (l *notificationLog) add(ctx context.Context, rec *schema.NotificationRecord) error {
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	key, max := schema.RefusedNotificationsKey, int64(refusedKept)
	shard, ok := schema.ParseOrderID(rec.OrderID)
	onOrder := ok && rec.Verdict != schema.VerdictUnknownOrder
	if onOrder {
		key, max = schema.NotificationsKey(shard, rec.OrderID), notificationsPerOrder
	}
	_, err = l.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.LPush(ctx, key, raw)
		p.LTrim(ctx, key, 0, max-1)
		if onOrder {
			p.Expire(ctx, key, l.keep)
		}
		if onOrder && rec.Exception() != "" {
			// The exceptions queue's index (operator console), on the order's
			// shard: kept no longer than the notifications it points at.
			at := rec.At.UnixMilli()
			p.ZAdd(ctx, schema.ExceptionsKey(shard), redis.Z{Score: float64(at), Member: rec.OrderID})
			p.ZRemRangeByScore(ctx, schema.ExceptionsKey(shard), "-inf", strconv.FormatInt(at-l.keep.Milliseconds(), 10))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("keep notification: %w", err)
	}
	return nil
}
