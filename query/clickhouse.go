package query

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/paygate/gateway/schema"
)

// ClickHouseOrders is the listing read model over the projected orders
// table, which holds one row per order version until merges keep only the
// highest. Every query folds versions itself (GROUP BY the order's key,
// argMax for the latest status, the highest version per id in Go) instead of
// FINAL, which on 18.16 merges every row of the merchant on each call.
//
// ClickHouse 18.16 cannot read a sort key backwards, so "newest first" would
// sort all of a merchant's rows. Instead a page is looked for in growing
// windows back from now: the primary key (appid, created_at, id) makes a
// window cost what it holds, and page 1,000 of a busy merchant sits in its
// last hours.
type ClickHouseOrders struct {
	conn      driver.Conn
	now       func() time.Time
	noRollups bool // reports fold every order live (benchmarks' baseline)
}

// NewClickHouseOrders wraps a connection to the migrated database.
func NewClickHouseOrders(conn driver.Conn) *ClickHouseOrders {
	return &ClickHouseOrders{conn: conn, now: time.Now}
}

// WithoutRollups is c with reports folded live whole, ignoring the rollup
// tables: the baseline the rollups are measured against.
func (c *ClickHouseOrders) WithoutRollups() *ClickHouseOrders {
	d := *c
	d.noRollups = true
	return &d
}

// windows are how far back from now a page is looked for, before all time.
var windows = []time.Duration{time.Hour, 4 * time.Hour, 16 * time.Hour, 64 * time.Hour,
	256 * time.Hour, 1024 * time.Hour, 4096 * time.Hour}

// scope is the part of a listing query before the versions are folded:
// conditions on what never changes for an order.
type scope struct {
	where string
	args  []any
}

func (f *Filter) scope(since time.Time) scope {
	conds := []string{"appid = ?"}
	args := []any{f.AppID}
	if f.ClientOrderID != "" {
		conds = append(conds, "client_order_id = ?")
		args = append(args, f.ClientOrderID)
	}
	if f.Currency != "" {
		conds = append(conds, "currency = ?")
		args = append(args, f.Currency)
	}
	if f.CustomerEmail != "" {
		c, a := f.emailScope()
		conds = append(conds, c)
		args = append(args, a...)
	}
	if !f.From.IsZero() {
		conds = append(conds, "created_at >= ?", "created_ms >= ?")
		args = append(args, f.From.UTC().Truncate(time.Second), uint64(f.From.UnixMilli()))
	}
	if !since.IsZero() {
		conds = append(conds, "created_at >= ?")
		args = append(args, since.UTC().Truncate(time.Second))
	}
	if !f.To.IsZero() {
		conds = append(conds, "created_at <= ?", "created_ms < ?")
		args = append(args, f.To.UTC(), uint64(f.To.UnixMilli()))
	}
	return scope{where: strings.Join(conds, " AND "), args: args}
}

// folded is one row per order in scope with its latest status, filtered by
// status and method when asked: versions differ only in what changes, so
// grouping by the key columns folds them exactly. The method is folded too:
// a select order's method changes when the payer chooses.
func (f *Filter) folded(sc scope) (string, []any) {
	cols := "created_at, id, argMax(status, version) AS st"
	args := sc.args
	var conds []string
	if f.Method != "" {
		cols += ", argMax(method, version) AS m"
		conds = append(conds, "m = ?")
		args = append(append([]any{}, args...), string(f.Method))
	}
	if f.Status != nil {
		conds = append(conds, "st = ?")
		args = append(append([]any{}, args...), uint8(*f.Status))
	}
	if c := f.Refunded.foldedCond(); c != "" {
		// The refunded amount is folded like the status: a predicate on
		// the latest row, read from the same granules.
		cols += ", argMax(refunded_amount, version) AS rfd, any(amount) AS amt"
		conds = append(conds, c)
		args = append(append([]any{}, args...), uint8(schema.StatusPaid))
	}
	q := "SELECT " + cols + " FROM orders WHERE " + sc.where + " GROUP BY created_at, id"
	if len(conds) > 0 {
		q = "SELECT created_at, id FROM (" + q + ") WHERE " + strings.Join(conds, " AND ")
	}
	return q, args
}

// windowsFor is windows, or none when the filter names its orders.
func windowsFor(f Filter) []time.Duration {
	if len(f.emailKeys) > 0 {
		return nil
	}
	return windows
}

// maxEmailKeys bounds the orders of one e-mail a search names one by one;
// past it the search reads the lookup as a subquery (right, not pruned).
const maxEmailKeys = 2000

// emailKeys finds, in the order_emails lookup (one granule: it is sorted
// by merchant and address), the orders of the filter's e-mail; found is
// false when there are none, so the search answers without reading orders.
func (c *ClickHouseOrders) emailKeys(ctx context.Context, f Filter) (_ Filter, found bool, _ error) {
	if f.CustomerEmail == "" {
		return f, true, nil
	}
	rows, err := c.conn.Query(ctx, "SELECT DISTINCT created_at, id FROM order_emails WHERE appid = ? AND email = ? LIMIT ?",
		f.AppID, schema.NormalEmail(f.CustomerEmail), uint64(maxEmailKeys+1))
	if err != nil {
		return f, false, fmt.Errorf("find orders by e-mail: %w", err)
	}
	defer rows.Close()
	var keys []orderKey
	for rows.Next() {
		var k orderKey
		if err := rows.Scan(&k.at, &k.id); err != nil {
			return f, false, fmt.Errorf("find orders by e-mail: %w", err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return f, false, fmt.Errorf("find orders by e-mail: %w", err)
	}
	if len(keys) <= maxEmailKeys {
		f.emailKeys = keys
	}
	return f, len(keys) > 0, nil
}

// emailScope is the e-mail search's condition. With the orders' keys
// found (emailKeys) it names each (created_at, id): ClickHouse turns an OR
// of equalities on key columns into key ranges and reads only their
// granules, which 18.16 does not do for a tuple IN a subquery. Without
// them (more than maxEmailKeys orders) it is the subquery.
func (f *Filter) emailScope() (string, []any) {
	if len(f.emailKeys) == 0 {
		return "(created_at, id) GLOBAL IN (SELECT created_at, id FROM order_emails WHERE appid = ? AND email = ?)",
			[]any{f.AppID, schema.NormalEmail(f.CustomerEmail)}
	}
	return keysCondition(f.emailKeys)
}

// keysCondition is "(created_at = t AND id = x) OR ..." of keys.
func keysCondition(keys []orderKey) (string, []any) {
	ors := make([]string, len(keys))
	args := make([]any, 0, 2*len(keys))
	for i, k := range keys {
		ors[i] = "(created_at = toDateTime(?) AND id = ?)"
		args = append(args, uint32(k.at.Unix()), k.id)
	}
	return "(" + strings.Join(ors, " OR ") + ")", args
}

func (c *ClickHouseOrders) count(ctx context.Context, f Filter, since time.Time) (int, error) {
	q, args := f.folded(f.scope(since))
	var n uint64
	if err := c.conn.QueryRow(ctx, "SELECT count() FROM ("+q+")", args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count orders: %w", err)
	}
	return int(n), nil
}

// Count is the exact number of orders the filter matches.
func (c *ClickHouseOrders) Count(ctx context.Context, f Filter) (int, error) {
	f, found, err := c.emailKeys(ctx, f)
	if err != nil || !found {
		return 0, err
	}
	return c.count(ctx, f, time.Time{})
}

// Page returns the filter's page, newest first. It finds the smallest
// window back from now (or from the filter's end) that holds the page.
// For the first pages it asks each window for the page itself: a window
// holds the page exactly when the page comes back full, so one query per
// window does what a count and then the page did (page 1 of a merchant's
// last hour: two queries instead of three; of a filter that needs the
// last four hours: three instead of four). Deeper pages count first: a
// window short of page 1,000 would sort all it holds for nothing.
func (c *ClickHouseOrders) Page(ctx context.Context, f Filter) ([]schema.Order, error) {
	f, found, err := c.emailKeys(ctx, f)
	if err != nil || !found {
		return nil, err
	}
	need := f.Page * f.Limit
	anchor := c.now()
	if !f.To.IsZero() {
		anchor = f.To
	}
	since := time.Time{}
	// An e-mail search's orders are named one by one: no window to look for.
	for _, w := range windowsFor(f) {
		s := anchor.Add(-w)
		if !f.From.IsZero() && !s.After(f.From) {
			break // the window covers the whole filtered range
		}
		if need <= directPageRows {
			keys, err := c.pageKeys(ctx, f, s)
			if err != nil {
				return nil, err
			}
			if len(keys) == f.Limit {
				return c.latest(ctx, f.AppID, keys)
			}
			continue
		}
		n, err := c.count(ctx, f, s)
		if err != nil {
			return nil, err
		}
		if n >= need {
			since = s
			break
		}
	}
	keys, err := c.pageKeys(ctx, f, since)
	if err != nil {
		return nil, err
	}
	return c.latest(ctx, f.AppID, keys)
}

// directPageRows is how deep a page (page × limit) Page asks windows for
// directly rather than counting them first: the first ten pages of 50.
const directPageRows = 500

// pageKeys is the filter's page among the orders created since since (all
// when zero), newest first.
func (c *ClickHouseOrders) pageKeys(ctx context.Context, f Filter, since time.Time) ([]orderKey, error) {
	q, args := f.folded(f.scope(since))
	args = append(append([]any{}, args...), uint64((f.Page-1)*f.Limit), uint64(f.Limit))
	rows, err := c.conn.Query(ctx, "SELECT created_at, id FROM ("+q+") ORDER BY created_at DESC, id DESC LIMIT ?, ?", args...)
	if err != nil {
		return nil, fmt.Errorf("page orders: %w", err)
	}
	defer rows.Close()
	var keys []orderKey
	for rows.Next() {
		var k orderKey
		if err := rows.Scan(&k.at, &k.id); err != nil {
			return nil, fmt.Errorf("page orders: %w", err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("page orders: %w", err)
	}
	return keys, nil
}

// orderKey is an order's place in the orders table's key.
type orderKey struct {
	at time.Time
	id string
}

// latest reads the full rows of keys, keeping each order's highest
// version, in the order of keys. It
// names each order's (created_at, id), between the oldest and newest of
// them, so only the granules holding them are read: a page of a search
// (one payer's orders, months apart) must not read every order between
// its first and last.
func (c *ClickHouseOrders) latest(ctx context.Context, appid string, keys []orderKey) ([]schema.Order, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	lo, hi := keys[0].at, keys[0].at
	for _, k := range keys {
		if k.at.Before(lo) {
			lo = k.at
		}
		if k.at.After(hi) {
			hi = k.at
		}
	}
	cond, kargs := keysCondition(keys)
	rows, err := c.conn.Query(ctx, "SELECT "+schema.OrderSelect+" FROM orders WHERE appid = ? AND created_at >= ? AND created_at <= ? AND "+cond,
		append([]any{appid, lo, hi}, kargs...)...)
	if err != nil {
		return nil, fmt.Errorf("read orders: %w", err)
	}
	defer rows.Close()
	byID := make(map[string]schema.Order, len(keys))
	for rows.Next() {
		o, err := schema.ScanOrder(rows)
		if err != nil {
			return nil, fmt.Errorf("read orders: %w", err)
		}
		if have, ok := byID[o.ID]; !ok || o.Version > have.Version {
			byID[o.ID] = o
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read orders: %w", err)
	}
	out := make([]schema.Order, 0, len(keys))
	for _, k := range keys {
		if o, ok := byID[k.id]; ok {
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
	sec := at.Truncate(time.Second)
	orders, err := c.latest(ctx, appid, []orderKey{{at: sec, id: id}})
	if err != nil {
		return nil, fmt.Errorf("read archived order: %w", err)
	}
	if len(orders) == 0 {
		return nil, ErrNotFound
	}
	return &orders[0], nil
}
