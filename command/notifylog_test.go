package command

import (
	"context"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// TestNotificationExceptionsIndexed: a notification that went wrong on one
// of our orders (a mismatch, a payment after expiry, a refusal) puts the
// order in its shard's exceptions index with the record, in one MULTI; a
// notification that did what it should, or names no order of ours, does
// not (the refused list already holds the latter).
func TestNotificationExceptionsIndexed(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	l := &notificationLog{rdb: rdb, keep: time.Hour}
	at := time.Now()
	tests := []struct {
		name, verdict, outcome string
		indexed                bool
	}{
		{"applied", schema.VerdictApplied, "paid", false},
		{"repeat", schema.VerdictNoChange, "paid", false},
		{"pending", schema.VerdictPending, "pending", false},
		{"partial", schema.VerdictPartial, "partial", true},
		{"wrong amount", schema.VerdictAmountMismatch, "paid", true},
		{"wrong currency", schema.VerdictCurrencyMismatch, "paid", true},
		{"another charge", schema.VerdictRefMismatch, "paid", true},
		{"paid after expiry", schema.VerdictIgnored, "paid", true},
		{"failure of a paid order", schema.VerdictIgnored, "failed", false},
		{"bad signature", schema.VerdictBadSignature, "", true},
		{"unverified", schema.VerdictUnverified, "paid", true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shard := schema.Shard(i % schema.NumShards)
			id := schema.NewOrderID(at, shard)
			rec := &schema.NotificationRecord{At: at, Provider: "wallet_a", OrderID: id, Verdict: tt.verdict, Outcome: tt.outcome}
			if err := l.add(context.Background(), rec); err != nil {
				t.Fatal(err)
			}
			_, err := rdb.ZScore(context.Background(), schema.ExceptionsKey(shard), id).Result()
			if indexed := err == nil; indexed != tt.indexed {
				t.Fatalf("indexed %v (%v), want %v", indexed, err, tt.indexed)
			}
		})
	}
	t.Run("unknown order", func(t *testing.T) {
		rec := &schema.NotificationRecord{At: at, Provider: "wallet_a", OrderID: "nope", Verdict: schema.VerdictUnknownOrder}
		if err := l.add(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		if n, _ := rdb.LLen(context.Background(), schema.RefusedNotificationsKey).Result(); n != 1 {
			t.Fatalf("refused list holds %d", n)
		}
	})
}
