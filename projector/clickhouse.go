package projector

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/paygate/gateway/schema"
)

// ClickHouse is the sink the gateway runs with: one batch insert per flush,
// naming its columns (18.16 needs it; later migrations may add columns),
// then the batch's report marks.
type ClickHouse struct {
	conn   driver.Conn
	insert string
	now    func() time.Time
}

// NewClickHouse wraps a connection to the migrated database.
func NewClickHouse(conn driver.Conn) *ClickHouse {
	return &ClickHouse{conn: conn, insert: "INSERT INTO orders (" + strings.Join(schema.OrderColumns, ", ") + ")", now: time.Now}
}

// Insert writes one row per event (the order as that event left it), then
// marks the hours the batch touched. The marks go after the orders are
// confirmed, never before: a rollup folded after a mark's time then
// certainly saw the mark's rows (docs/reporting.md). A failed mark insert
// fails the batch, which is inserted again (harmless) before it is
// acknowledged.
func (c *ClickHouse) Insert(ctx context.Context, events []schema.Event) error {
	b, err := c.conn.PrepareBatch(ctx, c.insert)
	if err != nil {
		return fmt.Errorf("prepare insert: %w", err)
	}
	for i := range events {
		if err := b.Append(schema.OrderRow(&events[i].Order, events[i].At)...); err != nil {
			_ = b.Abort()
			return fmt.Errorf("append row %s: %w", events[i].Order.ID, err)
		}
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("send insert: %w", err)
	}
	if err := c.emails(ctx, events); err != nil {
		return err
	}
	return c.mark(ctx, events)
}

// emailKey is one order's entry in the e-mail lookup.
type emailKey struct{ appid, id string }

// emails files the batch's orders that carry a customer e-mail under its
// normalised form (order_emails, migration 0030), one row per order per
// batch: the address never changes, so later versions repeat the row and
// merges fold it. A failure fails the batch, inserted again whole.
func (c *ClickHouse) emails(ctx context.Context, events []schema.Event) error {
	seen := map[emailKey]struct{}{}
	var b driver.Batch
	for i := range events {
		o := &events[i].Order
		email := schema.NormalEmail(o.CustomerEmail)
		k := emailKey{o.AppID, o.ID}
		if _, dup := seen[k]; email == "" || dup {
			continue
		}
		seen[k] = struct{}{}
		if b == nil {
			var err error
			if b, err = c.conn.PrepareBatch(ctx, "INSERT INTO order_emails (appid, email, created_at, id)"); err != nil {
				return fmt.Errorf("prepare e-mail lookup: %w", err)
			}
		}
		if err := b.Append(o.AppID, email, o.CreatedAt.UTC().Truncate(time.Second), o.ID); err != nil {
			_ = b.Abort()
			return fmt.Errorf("append e-mail of %s: %w", o.ID, err)
		}
	}
	if b == nil {
		return nil
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("send e-mail lookup: %w", err)
	}
	return nil
}

// hourMark is one merchant hour a batch touched.
type hourMark struct {
	appid string
	hour  int64 // Unix seconds of the hour's start
}

// hourMarks is the set of (merchant, hour of creation) of events.
func hourMarks(events []schema.Event) map[hourMark]struct{} {
	seen := make(map[hourMark]struct{}, 8)
	for i := range events {
		o := &events[i].Order
		seen[hourMark{o.AppID, o.CreatedAt.Unix() / 3600 * 3600}] = struct{}{}
	}
	return seen
}

// mark writes one report mark per (merchant, hour of creation) of events.
func (c *ClickHouse) mark(ctx context.Context, events []schema.Event) error {
	seen := hourMarks(events)
	if len(seen) == 0 {
		return nil
	}
	b, err := c.conn.PrepareBatch(ctx, "INSERT INTO report_marks (appid, hour, marked_ms)")
	if err != nil {
		return fmt.Errorf("prepare marks: %w", err)
	}
	at := uint64(c.now().UnixMilli())
	for m := range seen {
		if err := b.Append(m.appid, time.Unix(m.hour, 0).UTC(), at); err != nil {
			_ = b.Abort()
			return fmt.Errorf("append mark: %w", err)
		}
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("send marks: %w", err)
	}
	return nil
}
