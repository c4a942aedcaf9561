package projector

import (
	"context"
	"fmt"
	"strings"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/paygate/gateway/schema"
)

// ClickHouse is the sink the gateway runs with: one batch insert per flush,
// naming its columns (18.16 needs it; later migrations may add columns).
type ClickHouse struct {
	conn   driver.Conn
	insert string
}

// NewClickHouse wraps a connection to the migrated database.
func NewClickHouse(conn driver.Conn) *ClickHouse {
	return &ClickHouse{conn: conn, insert: "INSERT INTO orders (" + strings.Join(schema.OrderColumns, ", ") + ")"}
}

// Insert writes one row per event (the order as that event left it).
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
	return nil
}
