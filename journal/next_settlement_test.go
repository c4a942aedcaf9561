package journal_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/schema"
)

// sameShard is an appid other than appid on appid's home shard.
func sameShard(t *testing.T, appid string) string {
	t.Helper()
	for i := 0; i < 10000; i++ {
		o := fmt.Sprintf("9%04d", i)
		if o != appid && schema.HomeShard(o) == schema.HomeShard(appid) {
			return o
		}
	}
	t.Fatal("no appid on the same shard")
	return ""
}

// TestNextSettlement: the merchant's earliest moves, summed by currency
// less their reserve, past the moves of another merchant of its shard
// that fall due earlier; none at all is a zero time, and a merchant whose
// first move lies beyond the bounded read is Unknown.
func TestNextSettlement(t *testing.T) {
	j, rdb := newJournal(t)
	ctx := context.Background()
	const me = "2001"
	other := sameShard(t, me)
	key := schema.SettleDueKey(schema.HomeShard(me))
	at := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	add := func(when time.Time, d journal.DueMove) {
		t.Helper()
		if err := rdb.ZAdd(ctx, key, redisZ(when, d.String())).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := j.NextSettlement(ctx, me); err != nil || !n.At.IsZero() || n.Unknown {
		t.Fatalf("nothing due: %+v %v", n, err)
	}
	add(at.Add(-time.Hour), journal.DueMove{Kind: journal.KindSettlement, AppID: other, Ref: "o0", Currency: "USD", Amount: 1_00})
	add(at, journal.DueMove{Kind: journal.KindSettlement, AppID: me, Ref: "o1", Currency: "USD", Amount: 96_80, Reserve: 9_68})
	add(at, journal.DueMove{Kind: journal.KindSettlement, AppID: me, Ref: "o2", Currency: "USD", Amount: 10_00})
	add(at, journal.DueMove{Kind: journal.KindReserveRelease, AppID: me, Ref: "o3", Currency: "EUR", Amount: 5_00})
	add(at.Add(24*time.Hour), journal.DueMove{Kind: journal.KindSettlement, AppID: me, Ref: "o4", Currency: "USD", Amount: 7_00})
	n, err := j.NextSettlement(ctx, me)
	if err != nil {
		t.Fatal(err)
	}
	want := []journal.CurrencyAmount{{Currency: "EUR", Amount: 5_00}, {Currency: "USD", Amount: 97_12}}
	if !n.At.Equal(at) || n.Unknown || fmt.Sprint(n.Amounts) != fmt.Sprint(want) {
		t.Fatalf("next %+v, want %s %v", n, at, want)
	}
	// Another merchant's moves fill the index's head beyond the bound.
	var head []redis.Z
	for i := range journal.NextSettlementScan {
		head = append(head, redisZ(at.Add(-2*time.Hour), journal.DueMove{Kind: journal.KindSettlement, AppID: other, Ref: fmt.Sprintf("x%d", i), Currency: "USD", Amount: 1}.String()))
	}
	if err := rdb.ZAdd(ctx, key, head...).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := j.NextSettlement(ctx, me); err != nil || !n.Unknown || !n.At.IsZero() {
		t.Fatalf("beyond the bound: %+v %v, want Unknown", n, err)
	}
}

func redisZ(at time.Time, member string) redis.Z {
	return redis.Z{Score: float64(at.UnixMilli()), Member: member}
}
