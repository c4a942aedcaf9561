package command

import (
	"context"
	"encoding/json"
	"fmt"
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
	if shard, ok := schema.ParseOrderID(rec.OrderID); ok && rec.Verdict != schema.VerdictUnknownOrder {
		key, max = schema.NotificationsKey(shard, rec.OrderID), notificationsPerOrder
	}
	_, err = l.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.LPush(ctx, key, raw)
		p.LTrim(ctx, key, 0, max-1)
		if key != schema.RefusedNotificationsKey {
			p.Expire(ctx, key, l.keep)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("keep notification: %w", err)
	}
	return nil
}
