package query

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/paygate/gateway/schema"
)

// Reports fold versions at read time, like the listing: the orders table
// keeps one row per version (twice when the projector inserted an event
// again after a crash), and each row is the whole order as that version
// left it. Grouping a merchant's rows by id and taking argMax(x, version)
// of what changes yields every order exactly once, in its latest state,
// whatever the merges have done so far; duplicate rows carry the same
// version and the same values, so they cannot tip argMax. The aggregates
// are then plain sums over that folded set. See docs/reporting.md for why
// this over aggregate tables kept by the projector.

// foldedColumns are an order's fields as its latest version left them, for
// a query grouping its rows by order: the live fold's and the rollup job's.
const foldedColumns = "any(created_at) AS at, any(created_ms) AS cms, argMax(currency, version) AS cur, " +
	"argMax(amount, version) AS amt, argMax(status, version) AS st, argMax(method, version) AS m, " +
	"argMax(refunded_amount, version) AS rfd, argMax(completed_ms, version) AS done"

// foldedOrdersIn is the subquery of one row per order of f's scope created
// in spans: the immutable conditions go before the fold (they prune by
// primary key), the conditions on what changes (method, status) after it.
func foldedOrdersIn(f ReportFilter, spans []span) (string, []any) {
	cond, args := spansSQL("created_at", spans)
	conds := []string{"appid = ?", cond, "created_ms >= ?", "created_ms < ?"}
	args = append(append([]any{f.AppID}, args...), uint64(f.From.UnixMilli()), uint64(f.To.UnixMilli()))
	if f.Currency != "" {
		conds = append(conds, "currency = ?")
		args = append(args, f.Currency)
	}
	q := "SELECT id, " + foldedColumns + " FROM orders WHERE " + strings.Join(conds, " AND ") + " GROUP BY id"
	var after []string
	if f.Method != "" {
		after = append(after, "m = ?")
		args = append(args, string(f.Method))
	}
	if f.Status != nil {
		after = append(after, "st = ?")
		args = append(args, uint8(*f.Status))
	}
	if len(after) > 0 {
		q = "SELECT * FROM (" + q + ") WHERE " + strings.Join(after, " AND ")
	}
	return q, args
}

// reportCurrencies are the currencies any method takes, in a fixed order:
// 18.16's sumMap takes no String keys, so per-currency sums are one sumIf
// column each.
func reportCurrencies() []string {
	var out []string
	for _, m := range schema.AllMethods() {
		for _, c := range m.Currencies() {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Summary counts f's orders by status, sums paid and refunded amounts per
// currency and takes the time-to-paid quantiles, for all methods (key ”)
// and per method: ARRAY JOIN counts each unit once under its method and
// once under ”, so one pass serves both. The units are rolled-up cells and
// live folded orders (rollup_plan.go); the quantiles run over every paid
// order's time, which the cells keep whole (-Array).
func (c *ClickHouseOrders) Summary(ctx context.Context, f ReportFilter) (Summary, error) {
	curs := reportCurrencies()
	cols := []string{"k", "sum(n)", "sumIf(n, st = 2)", "sumIf(n, st = 3)", "sumIf(n, st = 4)", "sumIf(n, st < 2)",
		"sum(length(ts))", "quantilesExactArray(0.5, 0.9)(ts)"}
	for _, cur := range curs {
		cols = append(cols, "sumIf(amt, st = 2 AND cur = '"+cur+"')", "sumIf(rfd, cur = '"+cur+"')")
	}
	p, err := c.plan(ctx, f)
	if err != nil {
		return Summary{}, fmt.Errorf("summary: %w", err)
	}
	units, args := unitsOf(f, p, summaryColumns)
	q := "SELECT " + strings.Join(cols, ", ") + " FROM (" + units + ") ARRAY JOIN [m, ''] AS k GROUP BY k ORDER BY k"
	rows, err := c.conn.Query(p.ctx(ctx), q, args...)
	if err != nil {
		return Summary{}, fmt.Errorf("summary: %w", err)
	}
	defer rows.Close()
	out := Summary{Figures: emptyFigures(), ByMethod: []MethodFigures{}}
	for rows.Next() {
		var (
			k                                       string
			n, paid, failed, cancelled, open, timed uint64
			qs                                      []int64
		)
		sums := make([]int64, 2*len(curs))
		dest := []any{&k, &n, &paid, &failed, &cancelled, &open, &timed, &qs}
		for i := range sums {
			dest = append(dest, &sums[i])
		}
		if err := rows.Scan(dest...); err != nil {
			return Summary{}, fmt.Errorf("summary: %w", err)
		}
		fig := Figures{Created: int(n), Paid: int(paid), Failed: int(failed), Cancelled: int(cancelled), Open: int(open),
			Conversion: conversion(int(paid), int(n))}
		paidBy, refundedBy := map[string]int64{}, map[string]int64{}
		for i, cur := range curs {
			paidBy[cur], refundedBy[cur] = sums[2*i], sums[2*i+1]
		}
		fig.PaidAmount, fig.RefundedAmount = amounts(paidBy), amounts(refundedBy)
		if timed > 0 && len(qs) == 2 {
			fig.PaidP50Ms, fig.PaidP90Ms = &qs[0], &qs[1]
		}
		if k == "" {
			out.Figures = fig
		} else {
			out.ByMethod = append(out.ByMethod, MethodFigures{PaymentMethod: k, Figures: fig})
		}
	}
	if err := rows.Err(); err != nil {
		return Summary{}, fmt.Errorf("summary: %w", err)
	}
	return out, nil
}

func emptyFigures() Figures {
	return Figures{PaidAmount: map[string]string{}, RefundedAmount: map[string]string{}}
}
