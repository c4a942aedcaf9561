package platform

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
)

// rateStep is one call of ratelimit.lua: ask for want after pausing for
// pause (or, when waitFirst, for the wait the call before answered); then
// granted requests, or a refusal (granted 0) with a wait of at most wait.
type rateStep struct {
	pause     time.Duration
	waitFirst bool
	want      int64
	granted   int64
	wait      time.Duration
}

// TestRateLimitScript runs ratelimit.lua itself on the real Redis, by
// Redis's clock: what a lease is granted, the wait a refusal answers, and
// that the budget refills at the rate.
func TestRateLimitScript(t *testing.T) {
	tests := []struct {
		name     string
		interval time.Duration // emission interval
		burst    int64
		steps    []rateStep
	}{
		{"a lease is capped by what is asked", time.Second, 10, []rateStep{
			{want: 4, granted: 4}, {want: 4, granted: 4}, {want: 4, granted: 2}, {want: 1, wait: time.Second},
		}},
		{"a lease is capped by the burst left", time.Second, 3, []rateStep{
			{want: 2, granted: 2}, {want: 5, granted: 1}, {want: 1, wait: time.Second},
		}},
		{"one at a time", time.Second, 1, []rateStep{
			{want: 1, granted: 1}, {want: 1, wait: time.Second}, {want: 1, wait: time.Second},
		}},
		{"the budget refills at the rate", 200 * time.Millisecond, 2, []rateStep{
			{want: 2, granted: 2}, {want: 1, wait: 200 * time.Millisecond},
			{waitFirst: true, want: 2, granted: 1}, {want: 1, wait: 200 * time.Millisecond},
			{pause: 450 * time.Millisecond, want: 5, granted: 2},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rdb := testenv.Redis(t)
			sc := redis.NewScript(rateLimitLua)
			interval := tt.interval.Microseconds()
			tolerance := interval * (tt.burst - 1)
			var lastWait time.Duration
			for i, s := range tt.steps {
				pause := s.pause
				if s.waitFirst {
					pause = lastWait + 10*time.Millisecond
				}
				time.Sleep(pause)
				res, err := sc.Run(context.Background(), rdb, []string{"rl"}, interval, tolerance, s.want).Int64Slice()
				if err != nil || len(res) != 2 {
					t.Fatalf("step %d: %v %v", i+1, res, err)
				}
				granted, wait := res[0], time.Duration(res[1])*time.Microsecond
				if s.granted > 0 {
					if granted != s.granted || wait != 0 {
						t.Fatalf("step %d: granted %d, wait %v; want %d granted", i+1, granted, wait, s.granted)
					}
					continue
				}
				// The wait shrinks by the time since the grants it waits for.
				if granted != 0 || wait <= s.wait/2 || wait > s.wait {
					t.Fatalf("step %d: granted %d, wait %v; want a refusal with a wait up to %v", i+1, granted, wait, s.wait)
				}
				lastWait = wait
			}
		})
	}
}

// TestRateLimitKeyExpires: the script stores the theoretical arrival time
// as whole microseconds and gives the key a time to live that ends when the
// budget is full again, so an idle subject leaves nothing behind.
func TestRateLimitKeyExpires(t *testing.T) {
	rdb := testenv.Redis(t)
	ctx := context.Background()
	sc := redis.NewScript(rateLimitLua)
	const interval = 100 * time.Millisecond
	res, err := sc.Run(ctx, rdb, []string{"rl"}, interval.Microseconds(), 0, 1).Int64Slice()
	if err != nil || res[0] != 1 {
		t.Fatalf("first call: %v %v", res, err)
	}
	srv, err := rdb.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := rdb.Get(ctx, "rl").Result()
	if err != nil {
		t.Fatal(err)
	}
	tat, perr := strconv.ParseInt(raw, 10, 64)
	if now := srv.UnixMicro(); !regexp.MustCompile(`^[0-9]+$`).MatchString(raw) || perr != nil ||
		tat <= now-interval.Microseconds() || tat > now+interval.Microseconds() {
		t.Fatalf("stored arrival time %q (%v), want whole microseconds within %v of %d", raw, perr, interval, now)
	}
	if ttl, err := rdb.PTTL(ctx, "rl").Result(); err != nil || ttl <= 0 || ttl > interval+time.Millisecond {
		t.Fatalf("time to live %v (%v), want up to %v", ttl, err, interval+time.Millisecond)
	}
	time.Sleep(3 * interval)
	if _, err := rdb.Get(ctx, "rl").Result(); !errors.Is(err, redis.Nil) {
		t.Fatalf("the key outlived its window: %v", err)
	}
	if res, err := sc.Run(ctx, rdb, []string{"rl"}, interval.Microseconds(), 0, 1).Int64Slice(); err != nil || res[0] != 1 {
		t.Fatalf("after the window: %v %v", res, err)
	}
}
