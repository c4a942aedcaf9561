package query

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// A report is served from two parts (docs/reporting.md): the hours of its
// range whose rollup in report_hourly is current, read as per-cell sums,
// and everything else, folded live from the orders table. "Current" means
// the hour has a rollup row and no mark in report_marks is as new as that
// row's as_of_ms: the projector marks an hour after every order version of
// it is confirmed, and a rollup folded after a mark saw the mark's rows.
// The edges of a range that cut an hour, the open window the rollup job
// does not fold yet, and any hour changed since its last fold are live.

// span is a [lo, hi) stretch of creation time.
type span struct{ lo, hi time.Time }

// reportPlan is the split of one report's range.
type reportPlan struct {
	rolled []span // whole hours, rollups current
	live   []span // the rest, folded from orders
}

// minRolledRange: below this a report is folded live whole; the hours a
// rollup could serve are too few to pay for the extra query.
const minRolledRange = 6 * time.Hour

// maxLiveSpans: a plan with more stretches to fold live than this (the
// hours of many separate recent changes) is folded live whole instead; every
// stretch is a condition of the query, and the rollup job soon folds them.
const maxLiveSpans = 64

// plan splits f's range. With rollups off it is all live.
func (c *ClickHouseOrders) plan(ctx context.Context, f ReportFilter) (reportPlan, error) {
	all := reportPlan{live: []span{{f.From, f.To}}}
	h0, h1 := f.From.Truncate(time.Hour), f.To.Truncate(time.Hour)
	if !h0.Equal(f.From) {
		h0 = h0.Add(time.Hour)
	}
	if c.noRollups || h1.Sub(h0) < minRolledRange {
		return all, nil
	}
	clean, err := c.cleanHours(ctx, f.AppID, h0, h1)
	if err != nil {
		return reportPlan{}, err
	}
	var p reportPlan
	add := func(to *[]span, lo, hi time.Time) {
		if !lo.Before(hi) {
			return
		}
		if n := len(*to); n > 0 && (*to)[n-1].hi.Equal(lo) {
			(*to)[n-1].hi = hi
			return
		}
		*to = append(*to, span{lo, hi})
	}
	add(&p.live, f.From, h0)
	for h := h0; h.Before(h1); h = h.Add(time.Hour) {
		if clean[h.Unix()] {
			add(&p.rolled, h, h.Add(time.Hour))
		} else {
			add(&p.live, h, h.Add(time.Hour))
		}
	}
	add(&p.live, h1, f.To)
	if len(p.live) > maxLiveSpans {
		return all, nil
	}
	return p, nil
}

// cleanHours reads, for appid's hours in [h0, h1), the newest rollup and
// the newest mark in one round trip, and keeps the hours whose rollup is
// newer than any mark.
func (c *ClickHouseOrders) cleanHours(ctx context.Context, appid string, h0, h1 time.Time) (map[int64]bool, error) {
	rows, err := c.conn.Query(ctx, "SELECT toUInt8(0) AS k, hour, max(as_of_ms) AS v FROM report_hourly WHERE appid = ? AND hour >= ? AND hour < ? GROUP BY hour "+
		"UNION ALL SELECT toUInt8(1) AS k, hour, max(marked_ms) AS v FROM report_marks WHERE appid = ? AND hour >= ? AND hour < ? GROUP BY hour",
		appid, h0, h1, appid, h0, h1)
	if err != nil {
		return nil, fmt.Errorf("rollup state: %w", err)
	}
	defer rows.Close()
	asOf, marked := map[int64]uint64{}, map[int64]uint64{}
	for rows.Next() {
		var (
			k uint8
			h time.Time
			v uint64
		)
		if err := rows.Scan(&k, &h, &v); err != nil {
			return nil, fmt.Errorf("rollup state: %w", err)
		}
		if k == 0 {
			asOf[h.Unix()] = v
		} else {
			marked[h.Unix()] = v
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("rollup state: %w", err)
	}
	clean := make(map[int64]bool, len(asOf))
	for h, a := range asOf {
		if m, ok := marked[h]; !ok || m < a {
			clean[h] = true
		}
	}
	return clean, nil
}

// spansSQL is a condition that col lies in one of spans, col being a
// DateTime (whole seconds): a span's end is rounded up to the second, the
// millisecond bounds of the range being applied apart.
func spansSQL(col string, spans []span) (string, []any) {
	parts := make([]string, len(spans))
	args := make([]any, 0, 2*len(spans))
	for i, s := range spans {
		hi := s.hi.Truncate(time.Second)
		if !hi.Equal(s.hi) {
			hi = hi.Add(time.Second)
		}
		parts[i] = "(" + col + " >= ? AND " + col + " < ?)"
		args = append(args, s.lo.Truncate(time.Second), hi)
	}
	return "(" + strings.Join(parts, " OR ") + ")", args
}

// reportUnits is the subquery every summary and series reads: rows of
// (at, m, cur, st, n, amt, rfd, ts) where a row is either a rolled-up cell
// (at its hour; n orders of that method, currency and status now, their
// amounts and refunds summed, ts their create-to-paid times) or one live
// folded order (n = 1). The filters on method, currency and status apply to
// both parts alike.
func reportUnits(f ReportFilter, p reportPlan) (string, []any) {
	var parts []string
	var args []any
	if len(p.live) > 0 {
		fold, fargs := foldedOrdersIn(f, p.live)
		parts = append(parts, "SELECT at, m, cur, st, toUInt64(1) AS n, amt, rfd, "+
			"if(st = 2 AND done > 0, [toInt64(done) - toInt64(cms)], emptyArrayInt64()) AS ts FROM ("+fold+")")
		args = append(args, fargs...)
	}
	if len(p.rolled) > 0 {
		cond, cargs := spansSQL("hour", p.rolled)
		// The newest fold of each hour: ORDER BY … LIMIT 1 BY keeps one
		// whole row (its arrays together) and costs about half of an argMax
		// of the tuple of arrays, which copies every candidate.
		q := "SELECT hour AS at, m, cur, st, n, amt, rfd, ts FROM (SELECT hour, c_method, c_currency, c_status, c_orders, " +
			"c_amount, c_refunded, c_times FROM report_hourly WHERE appid = ? AND " + cond +
			" ORDER BY hour, as_of_ms DESC LIMIT 1 BY hour) ARRAY JOIN c_method AS m, c_currency AS cur, c_status AS st, " +
			"c_orders AS n, c_amount AS amt, c_refunded AS rfd, c_times AS ts"
		args = append(append(args, f.AppID), cargs...)
		var conds []string
		if f.Method != "" {
			conds = append(conds, "m = ?")
			args = append(args, string(f.Method))
		}
		if f.Currency != "" {
			conds = append(conds, "cur = ?")
			args = append(args, f.Currency)
		}
		if f.Status != nil {
			conds = append(conds, "st = ?")
			args = append(args, uint8(*f.Status))
		}
		if len(conds) > 0 {
			q += " WHERE " + strings.Join(conds, " AND ")
		}
		parts = append(parts, q)
	}
	return strings.Join(parts, " UNION ALL "), args
}
