package command

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// TestConfigClockDecides: Config.Now is the clock a create writes by, so a
// process whose clock is skewed (GATEWAY_CLOCK_OFFSET) writes its skewed
// time into the order and into the expiry index every process sweeps.
func TestConfigClockDecides(t *testing.T) {
	tests := []struct {
		name   string
		offset time.Duration
	}{
		{"ahead", 5 * time.Minute},
		{"behind", -5 * time.Minute},
		{"real", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRedisHarness(t, withClock(platform.OffsetClock(tt.offset)))
			ctx := context.Background()
			before := time.Now()
			id := h.createOK(h.baseParams())["paymentId"].(string)
			o, err := h.store.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if skew := o.CreatedAt.Sub(before); skew < tt.offset-time.Second || skew > tt.offset+time.Minute {
				t.Fatalf("order created %s from the real clock, want %s", skew, tt.offset)
			}
			shard, _ := schema.ParseOrderID(id)
			// The harness's order TTL is one minute.
			want := schema.ExpiryBucketSecond(o.CreatedAt.Add(time.Minute).UnixMilli())
			if err := h.rdb.LPos(ctx, schema.ExpiryBucketKey(shard, want), id, redis.LPosArgs{}).Err(); err != nil {
				t.Fatalf("not in the expiry bucket of created+TTL, second %d: %v", want, err)
			}
		})
	}
}
