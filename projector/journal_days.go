package projector

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/paygate/gateway/journal"
)

// DayKey is one merchant's UTC day: days since 1970-01-01.
type DayKey struct {
	AppID string
	Day   int64
}

// dayOf is the UTC day of t.
func dayOf(t time.Time) int64 { return t.UTC().Unix() / 86400 }

// bucketMove reports a kind that only moves money between a merchant's
// buckets: the daily statement reads none of its postings.
func bucketMove(kind string) bool {
	return kind == journal.KindSettlement || kind == journal.KindReserveRelease
}

// TouchedDays is the days of es that the daily table must be recomputed for.
func TouchedDays(es []journal.Entry) []DayKey {
	seen := map[DayKey]struct{}{}
	for _, e := range es {
		if !bucketMove(e.Kind) {
			seen[DayKey{e.AppID, dayOf(e.At)}] = struct{}{}
		}
	}
	out := make([]DayKey, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].AppID != out[j].AppID {
			return out[i].AppID < out[j].AppID
		}
		return out[i].Day < out[j].Day
	})
	return out
}

// rollChunk is how many days one recomputation names.
const rollChunk = 200

// RollDays recomputes the daily table's rows of days from the journal
// table, whole, folding duplicate postings (GROUP BY tx, line), under
// version: a later recomputation has a higher version and saw every row
// the earlier one did, so the highest version of a day is its truth. The
// projection runs it after inserting a batch and before acknowledging it,
// so a crash between the two inserts the batch and recomputes its days
// again.
func RollDays(ctx context.Context, conn driver.Conn, days []DayKey, version uint64) error {
	for len(days) > 0 {
		n := min(len(days), rollChunk)
		if err := rollDays(ctx, conn, days[:n], version); err != nil {
			return err
		}
		days = days[n:]
	}
	return nil
}

func rollDays(ctx context.Context, conn driver.Conn, days []DayKey, version uint64) error {
	conds := make([]string, 0, len(days))
	args := make([]any, 0, 3*len(days)+1)
	for _, d := range days {
		conds = append(conds, "(appid = ? AND at >= ? AND at < ?)")
		from := time.Unix(d.Day*86400, 0).UTC()
		args = append(args, d.AppID, from, from.Add(24*time.Hour))
	}
	q := "INSERT INTO journal_days (appid, day, currency, kind, merchant, fees, postings, version) " +
		"SELECT a, toUInt32(intDiv(ms0, 86400000)) AS d, cur, k, sumIf(amt, acct LIKE 'merchant:%'), " +
		"sumIf(amt, acct = '" + journal.Fees + "'), count(), " + fmt.Sprint(version) + " FROM (" +
		"SELECT appid AS a, tx, line, any(kind) AS k, any(at_ms) AS ms0, any(account) AS acct, any(currency) AS cur, " +
		"any(amount) AS amt FROM journal WHERE (" + strings.Join(conds, " OR ") + ") " +
		"AND (account = '" + journal.Fees + "' OR account LIKE 'merchant:%') " +
		"AND kind NOT IN ('" + journal.KindSettlement + "', '" + journal.KindReserveRelease + "') " +
		"GROUP BY appid, tx, line) GROUP BY a, d, cur, k"
	if err := conn.Exec(ctx, q, args...); err != nil {
		return fmt.Errorf("recompute %d journal days: %w", len(days), err)
	}
	return nil
}
