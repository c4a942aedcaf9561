package query

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/paygate/gateway/schema"
)

// Notifications reads the provider notifications an order received, with
// their verdicts, newest first (the command side keeps the last hundred,
// as long as the order).
func (r *RedisOrders) Notifications(ctx context.Context, id string) ([]schema.NotificationRecord, error) {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return nil, nil
	}
	raw, err := r.rdb.LRange(ctx, schema.NotificationsKey(shard, id), 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("read notifications of order %s: %w", id, err)
	}
	out := make([]schema.NotificationRecord, 0, len(raw))
	for _, s := range raw {
		var rec schema.NotificationRecord
		if err := json.Unmarshal([]byte(s), &rec); err != nil {
			return nil, fmt.Errorf("notification of order %s: %w", id, err)
		}
		out = append(out, rec)
	}
	return out, nil
}
