package journal

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// NextSettlement is a merchant's earliest settlement moves waiting in the
// due index: when they fall due and what they make available, by currency.
type NextSettlement struct {
	At      time.Time
	Amounts []CurrencyAmount
	// Unknown is set when the merchant has no move among the first
	// NextSettlementScan of its shard's due index: it may have one later.
	Unknown bool
}

// CurrencyAmount is an amount in a currency.
type CurrencyAmount struct {
	Currency string
	Amount   schema.Amount
}

// NextSettlementScan bounds how much of a shard's due index one look
// reads: the index holds every merchant of the shard, earliest first.
const NextSettlementScan = 5000

const nextSettlementChunk = 500

// NextSettlement reads the earliest settlement moves of appid from its
// home shard's due index (schema.SettleDueKey): settlements less their
// reserve, and reserve releases, due at the same time as the earliest.
// It reads at most NextSettlementScan members, oldest first; a merchant
// with none among them gets Unknown, one with none at all a zero At.
func (j *Journal) NextSettlement(ctx context.Context, appid string) (NextSettlement, error) {
	key := schema.SettleDueKey(schema.HomeShard(appid))
	var out NextSettlement
	sums := map[string]schema.Amount{}
	for off := int64(0); off < NextSettlementScan; off += nextSettlementChunk {
		zs, err := j.rdb.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: key, Start: "-inf", Stop: "+inf", ByScore: true,
			Offset: off, Count: nextSettlementChunk}).Result()
		if err != nil {
			return NextSettlement{}, fmt.Errorf("read the settlement due index: %w", err)
		}
		for _, z := range zs {
			member, _ := z.Member.(string)
			d, err := ParseDueMove(member)
			if err != nil || d.AppID != appid {
				continue
			}
			at := time.UnixMilli(int64(z.Score)).UTC()
			if !out.At.IsZero() && at.After(out.At) {
				return out.with(sums), nil
			}
			out.At = at
			sums[d.Currency] += d.Amount - d.Reserve
		}
		if len(zs) < nextSettlementChunk {
			return out.with(sums), nil
		}
	}
	if out.At.IsZero() {
		out.Unknown = true
	}
	return out.with(sums), nil
}

func (n NextSettlement) with(sums map[string]schema.Amount) NextSettlement {
	for cur, amt := range sums {
		n.Amounts = append(n.Amounts, CurrencyAmount{Currency: cur, Amount: amt})
	}
	sort.Slice(n.Amounts, func(i, k int) bool { return n.Amounts[i].Currency < n.Amounts[k].Currency })
	return n
}
