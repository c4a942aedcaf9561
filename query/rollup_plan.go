package query

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// A report is served from two parts (docs/reporting.md): the hours of its
// range whose rollup in report_cells is current, read as per-cell sums,
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

// ctx is ctx with the read side's settings when the plan reads rollups;
// a plan folding everything live keeps ClickHouse's parallel reads.
func (p reportPlan) ctx(ctx context.Context) context.Context {
	if len(p.rolled) == 0 {
		return ctx
	}
	return readCtx(ctx)
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
	// Every clean hour lies inside [h0, h1); whatever is between them is
	// live. Walking the clean hours, not every hour of the range, keeps a
	// listing's unbounded range (from 1970) as cheap as a 90-day one.
	at := f.From
	for _, u := range slices.Sorted(maps.Keys(clean)) {
		h := time.Unix(u, 0).UTC()
		add(&p.live, at, h)
		add(&p.rolled, h, h.Add(time.Hour))
		at = h.Add(time.Hour)
	}
	add(&p.live, at, f.To)
	if len(p.live) > maxLiveSpans {
		return all, nil
	}
	return p, nil
}

// cleanHours reads, for appid's hours in [h0, h1), the newest rollup and
// the newest mark in one round trip, and keeps the hours whose rollup is
// newer than any mark.
func (c *ClickHouseOrders) cleanHours(ctx context.Context, appid string, h0, h1 time.Time) (map[int64]bool, error) {
	rows, err := c.conn.Query(readCtx(ctx), "SELECT toUInt8(0) AS k, hour, max(as_of_ms) AS v FROM report_cells WHERE appid = ? AND hour >= ? AND hour < ? GROUP BY hour "+
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

// unitColumn is one column of the units: its expression over a live
// folded order and the rollup array it is ARRAY JOINed from ("" when it
// is not an array: at, the hour).
type unitColumn struct{ name, live, rolled string }

var (
	colAt  = unitColumn{"at", "at", ""}
	colM   = unitColumn{"m", "m", "c_method"}
	colCur = unitColumn{"cur", "cur", "c_currency"}
	colSt  = unitColumn{"st", "st", "c_status"}
	colN   = unitColumn{"n", "toUInt64(1)", "c_orders"}
	colAmt = unitColumn{"amt", "amt", "c_amount"}
	colRfd = unitColumn{"rfd", "rfd", "c_refunded"}
	colTs  = unitColumn{"ts", "if(st = 2 AND done > 0, [toInt64(done) - toInt64(cms)], emptyArrayInt64())", "c_times"}

	// What each reader reads: a column left out of a rollup's ARRAY JOIN
	// is not read at all, and the create-to-paid times are by far the
	// widest (every paid order's), which only the summary needs.
	summaryColumns = []unitColumn{colM, colCur, colSt, colN, colAmt, colRfd, colTs}
	seriesColumns  = []unitColumn{colAt, colM, colCur, colSt, colN, colAmt}
	countColumns   = []unitColumn{colM, colCur, colSt, colN}
)

// unitsOf is the subquery every summary, series and rollup count reads:
// rows of cols (of at, m, cur, st, n, amt, rfd, ts) where a row is either a
// rolled-up cell (at its hour; n orders of that method, currency and status
// now, their amounts and refunds summed, ts their create-to-paid times) or
// one live folded order (n = 1). The filters on method, currency and status
// apply to both parts alike; m, cur and st are always among cols.
func unitsOf(f ReportFilter, p reportPlan, cols []unitColumn) (string, []any) {
	var parts []string
	var args []any
	if len(p.live) > 0 {
		fold, fargs := foldedOrdersIn(f, p.live)
		sel := make([]string, len(cols))
		for i, c := range cols {
			sel[i] = c.live
			if c.live != c.name {
				sel[i] += " AS " + c.name
			}
		}
		parts = append(parts, "SELECT "+strings.Join(sel, ", ")+" FROM ("+fold+")")
		args = append(args, fargs...)
	}
	if len(p.rolled) > 0 {
		q, rargs := rolledUnits(f, p.rolled, cols)
		parts = append(parts, q)
		args = append(args, rargs...)
	}
	return strings.Join(parts, " UNION ALL "), args
}

// rolledUnits is the rolled-up cells of the hours in spans.
func rolledUnits(f ReportFilter, spans []span, cols []unitColumn) (string, []any) {
	cond, cargs := spansSQL("hour", spans)
	var sel, inner, joins []string
	for _, c := range cols {
		if c.rolled == "" {
			sel, inner = append(sel, "hour AS "+c.name), append(inner, "hour")
			continue
		}
		sel, inner, joins = append(sel, c.name), append(inner, c.rolled), append(joins, c.rolled+" AS "+c.name)
	}
	if !slices.Contains(inner, "hour") {
		inner = append(inner, "hour")
	}
	// The newest fold of each hour: ORDER BY … LIMIT 1 BY keeps one whole
	// row (its arrays together) and costs about half of an argMax of the
	// tuple of arrays, which copies every candidate.
	q := "SELECT " + strings.Join(sel, ", ") + " FROM (SELECT " + strings.Join(inner, ", ") +
		" FROM report_cells WHERE appid = ? AND " + cond + " ORDER BY hour, as_of_ms DESC LIMIT 1 BY hour) ARRAY JOIN " +
		strings.Join(joins, ", ")
	args := append([]any{f.AppID}, cargs...)
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
	return q, args
}
