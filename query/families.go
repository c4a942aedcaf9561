package query

import (
	"context"
	"fmt"
	"time"
)

// MethodOrders is how many orders of every merchant one method had since
// a time, live or sandbox apart: the operator's Providers page lists every
// provider family that has orders, even one whose calls the last hour's
// health did not see.
type MethodOrders struct {
	Method  string
	Sandbox bool
	Orders  int
}

// MethodsSince counts every merchant's orders created since since by
// their latest method and mode. It reads the orders of the range once
// (three columns); the page asks for a day.
func (c *ClickHouseOrders) MethodsSince(ctx context.Context, since time.Time) ([]MethodOrders, error) {
	rows, err := c.conn.Query(ctx, "SELECT m, sb, count() FROM (SELECT id, argMax(method, version) AS m, any(sandbox) AS sb "+
		"FROM orders WHERE created_at >= ? GROUP BY id) WHERE m != '' GROUP BY m, sb ORDER BY m, sb", since.UTC())
	if err != nil {
		return nil, fmt.Errorf("orders by method: %w", err)
	}
	defer rows.Close()
	var out []MethodOrders
	for rows.Next() {
		var (
			m  string
			sb uint8
			n  uint64
		)
		if err := rows.Scan(&m, &sb, &n); err != nil {
			return nil, fmt.Errorf("orders by method: %w", err)
		}
		out = append(out, MethodOrders{Method: m, Sandbox: sb == 1, Orders: int(n)})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("orders by method: %w", err)
	}
	return out, nil
}
