package query

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/paygate/gateway/schema"
)

// ClickHouseOrders is the listing read model over the projected orders
// table. The table holds one row per order version; FINAL keeps the latest.
// Conditions on columns that never change for an order (appid, created_at,
// id, client_order_id) are applied before FINAL, where they use the index;
// the status, which changes, is filtered only after FINAL has picked each
// order's latest row, or an old version could match.
type ClickHouseOrders struct {
	conn driver.Conn
}

// NewClickHouseOrders wraps a connection to the migrated database.
func NewClickHouseOrders(conn driver.Conn) *ClickHouseOrders { return &ClickHouseOrders{conn: conn} }

// where builds the conditions that are safe before FINAL.
func (f *Filter) where() (string, []any) {
	conds := []string{"appid = ?"}
	args := []any{f.AppID}
	if f.ClientOrderID != "" {
		conds = append(conds, "client_order_id = ?")
		args = append(args, f.ClientOrderID)
	}
	if !f.From.IsZero() {
		conds = append(conds, "created_at >= ?", "created_ms >= ?")
		args = append(args, f.From.UTC().Truncate(time.Second), uint64(f.From.UnixMilli()))
	}
	if !f.To.IsZero() {
		conds = append(conds, "created_at <= ?", "created_ms < ?")
		args = append(args, f.To.UTC(), uint64(f.To.UnixMilli()))
	}
	return strings.Join(conds, " AND "), args
}

func (f *Filter) outer() (string, []any) {
	if f.Status == nil {
		return "", nil
	}
	return " WHERE status = ?", []any{uint8(*f.Status)}
}

// List finds one page in two steps: the page's ids from the narrow key
// columns, then the full rows of just those orders.
func (c *ClickHouseOrders) List(ctx context.Context, f Filter) (int, []schema.Order, error) {
	where, args := f.where()
	outer, oargs := f.outer()
	inner := "SELECT created_at, id, status FROM orders FINAL WHERE " + where
	var total uint64
	if err := c.conn.QueryRow(ctx, "SELECT count() FROM ("+inner+")"+outer, append(args, oargs...)...).Scan(&total); err != nil {
		return 0, nil, fmt.Errorf("count orders: %w", err)
	}
	offset := (f.Page - 1) * f.Limit
	if total == 0 || uint64(offset) >= total {
		return int(total), nil, nil
	}
	page := "SELECT id FROM (" + inner + ")" + outer + " ORDER BY created_at DESC, id DESC LIMIT ?, ?"
	rows, err := c.conn.Query(ctx, page, append(append(args, oargs...), uint64(offset), uint64(f.Limit))...)
	if err != nil {
		return 0, nil, fmt.Errorf("page orders: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, nil, fmt.Errorf("page orders: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, nil, fmt.Errorf("page orders: %w", err)
	}
	orders, err := c.byIDs(ctx, f.AppID, ids)
	return int(total), orders, err
}

// byIDs reads full rows and keeps the page's order.
func (c *ClickHouseOrders) byIDs(ctx context.Context, appid string, ids []string) ([]schema.Order, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	set := make([]any, len(ids))
	for i, id := range ids {
		set[i] = id
	}
	rows, err := c.conn.Query(ctx, "SELECT "+schema.OrderSelect+" FROM orders FINAL WHERE appid = ? AND id IN ?", appid, clickhouse.GroupSet{Value: set})
	if err != nil {
		return nil, fmt.Errorf("read orders: %w", err)
	}
	defer rows.Close()
	byID := make(map[string]schema.Order, len(ids))
	for rows.Next() {
		o, err := schema.ScanOrder(rows)
		if err != nil {
			return nil, fmt.Errorf("read orders: %w", err)
		}
		byID[o.ID] = o
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read orders: %w", err)
	}
	out := make([]schema.Order, 0, len(ids))
	for _, id := range ids {
		if o, ok := byID[id]; ok {
			out = append(out, o)
		}
	}
	return out, nil
}

// Archived reads one order of a merchant; the id carries its creation time,
// so the lookup is a primary-key point read.
func (c *ClickHouseOrders) Archived(ctx context.Context, appid, id string) (*schema.Order, error) {
	at, ok := schema.OrderIDTime(id)
	if !ok {
		return nil, ErrNotFound
	}
	row := c.conn.QueryRow(ctx, "SELECT "+schema.OrderSelect+" FROM orders FINAL WHERE appid = ? AND created_at = ? AND id = ?",
		appid, at.Truncate(time.Second), id)
	o, err := schema.ScanOrder(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read archived order: %w", err)
	}
	return &o, nil
}
