package command

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// OrderFiles is what support reads about one order in the keys the
// command side owns: the order as Redis holds it, its events still in its
// shard's stream, every provider notification with its verdict, and a
// usdt_direct order's review decisions. It is `gateway order show`'s door,
// so no other package reads these keys.
type OrderFiles struct {
	store   *Store
	backlog *USDTBacklog
}

// NewOrderFiles reads over store.
func NewOrderFiles(store *Store) *OrderFiles {
	return &OrderFiles{store: store, backlog: NewUSDTBacklog(store)}
}

// StreamEvent is one of an order's events as its shard's stream holds it.
type StreamEvent struct {
	ID      string // the entry id, whose first part is its time in ms
	Type    string
	Status  schema.Status
	Version string
}

// Order is order id as Redis holds it; a KindNotFound error wrapping
// ErrOrderNotFound when Redis has it not (never created, or past its
// retention).
func (f *OrderFiles) Order(ctx context.Context, id string) (*schema.Order, error) {
	return f.store.Get(ctx, id)
}

// Events reads o's events from its shard's stream, between its creation and
// its last change (entry ids are times): the stream is trimmed once every
// group has read it, so older events live only in ClickHouse.
func (f *OrderFiles) Events(ctx context.Context, o *schema.Order) ([]StreamEvent, error) {
	shard, _ := schema.ParseOrderID(o.ID)
	from := strconv.FormatInt(o.CreatedAt.UnixMilli(), 10)
	to := strconv.FormatInt(o.UpdatedAt.Add(time.Second).UnixMilli(), 10)
	var out []StreamEvent
	for {
		msgs, err := f.store.rdb.XRangeN(ctx, schema.EventsKey(shard), from, to, 1000).Result()
		if err != nil {
			return nil, fmt.Errorf("read events: %w", err)
		}
		for _, m := range msgs {
			if m.Values[schema.FID] != o.ID {
				continue
			}
			st, _ := strconv.Atoi(fmt.Sprint(m.Values[schema.FStatus]))
			out = append(out, StreamEvent{ID: m.ID, Type: fmt.Sprint(m.Values["type"]), Status: schema.Status(st),
				Version: fmt.Sprint(m.Values[schema.FVersion])})
		}
		if len(msgs) < 1000 {
			return out, nil
		}
		from = "(" + msgs[len(msgs)-1].ID
	}
}

// Notifications are the provider notifications kept on order id, oldest
// first (notificationLog).
func (f *OrderFiles) Notifications(ctx context.Context, id string) ([]schema.NotificationRecord, error) {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return nil, orderNotFound(id)
	}
	raw, err := f.store.rdb.LRange(ctx, schema.NotificationsKey(shard, id), 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("read notifications: %w", err)
	}
	var out []schema.NotificationRecord
	for i := len(raw) - 1; i >= 0; i-- { // kept newest first
		var rec schema.NotificationRecord
		if err := json.Unmarshal([]byte(raw[i]), &rec); err != nil {
			return nil, fmt.Errorf("decode notification: %w", err)
		}
		out = append(out, rec)
	}
	return out, nil
}

// History is order id's review decisions, oldest first (USDTBacklog.History).
func (f *OrderFiles) History(ctx context.Context, id string) ([]usdt.Decision, error) {
	return f.backlog.History(ctx, id)
}
