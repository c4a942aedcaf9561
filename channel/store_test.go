package channel

import (
	"context"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

func newRedis(t *testing.T) *redis.Client {
	t.Helper()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func entry(action string) audit.Entry {
	return audit.Entry{At: time.Now(), ActorID: "tester", Realm: audit.RealmCLI, Action: action, Target: "channel", Source: "cli"}
}

func auditLen(t *testing.T, rdb *redis.Client) int64 {
	t.Helper()
	n, err := rdb.XLen(context.Background(), auditStream).Result()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestStoreChangesReachTheDirectory(t *testing.T) {
	rdb := newRedis(t)
	st, ctx := NewStore(rdb), context.Background()
	dir := NewDirectory(rdb, time.Millisecond, nil)
	ref := Ref{Method: schema.MethodWalletA, ID: "b"}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(st.Set(ctx, ref, Settings{Weight: 5, DailyCount: 3, Cost: schema.FeeSchedule{Bps: 100}}, entry("channel.set")))
	must(st.SetMode(ctx, false, schema.MethodWalletA, ModeWeighted, entry("channel.mode")))
	must(st.SetPin(ctx, "1001", false, schema.MethodWalletA, []string{"b"}, entry("channel.pin")))
	must(st.SetKeywords(ctx, []string{"account restricted"}, entry("channel.keywords")))
	must(dir.Load(ctx))
	s := dir.Now()
	if got := s.SettingsOf(ref); got.Weight != 5 || got.DailyCount != 3 || got.Cost.Bps != 100 {
		t.Fatalf("settings %+v", got)
	}
	if s.ModeOf(false, schema.MethodWalletA) != ModeWeighted || s.ModeOf(true, schema.MethodWalletA) != ModePriority {
		t.Fatal("mode not per mode of the merchant")
	}
	if p := s.PinOf("1001", false, schema.MethodWalletA); len(p) != 1 || p[0] != "b" {
		t.Fatalf("pin %v", p)
	}
	if len(s.Keywords) != 1 {
		t.Fatalf("keywords %v", s.Keywords)
	}
	if n := auditLen(t, rdb); n != 4 {
		t.Fatalf("%d audit entries, want one per change", n)
	}
	must(st.SetPin(ctx, "1001", false, schema.MethodWalletA, nil, entry("channel.pin")))
	must(dir.Load(ctx))
	if p := dir.Now().PinOf("1001", false, schema.MethodWalletA); p != nil {
		t.Fatalf("pin not removed: %v", p)
	}
}

func TestStoreRefusesBadInput(t *testing.T) {
	rdb := newRedis(t)
	st, ctx := NewStore(rdb), context.Background()
	ref := Ref{Method: schema.MethodWalletA, ID: "b"}
	tests := []struct {
		name string
		do   func() error
	}{
		{"bad settings", func() error { return st.Set(ctx, ref, Settings{Weight: -2}, entry("channel.set")) }},
		{"bad mode", func() error { return st.SetMode(ctx, false, schema.MethodWalletA, "random", entry("channel.mode")) }},
		{"markup pin", func() error {
			return st.SetPin(ctx, "1001", false, schema.MethodWalletA, []string{"<b>"}, entry("channel.pin"))
		}},
		{"keyword matching all", func() error { return st.SetKeywords(ctx, []string{"e"}, entry("channel.keywords")) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.do(); platform.KindOf(err) != platform.KindInvalidParameter {
				t.Fatalf("error %v, want invalid_parameter", err)
			}
		})
	}
	if n := auditLen(t, rdb); n != 0 {
		t.Fatalf("%d audit entries for refused changes", n)
	}
}

// Two processes trip one breaker: one write, one audit entry.
func TestBreakerChangeIsCompareAndSet(t *testing.T) {
	rdb := newRedis(t)
	st, ctx := NewStore(rdb), context.Background()
	ref := Ref{Method: schema.MethodWalletA, ID: "a"}
	open := Breaker{State: Open, Reason: "5 failures in a row", Since: noon}
	first, err := st.SetBreaker(ctx, ref, Breaker{}, open, entry("channel.breaker_open"))
	if err != nil || !first {
		t.Fatalf("first trip: %v, %v", first, err)
	}
	second, err := st.SetBreaker(ctx, ref, Breaker{}, open, entry("channel.breaker_open"))
	if err != nil || second {
		t.Fatalf("second trip from the same stale state: %v, %v; want false", second, err)
	}
	closed := Breaker{State: Closed, Since: noon.Add(time.Minute), By: "ops"}
	if ok, err := st.SetBreaker(ctx, ref, open, closed, entry("channel.breaker_close")); err != nil || !ok {
		t.Fatalf("close: %v, %v", ok, err)
	}
	if n := auditLen(t, rdb); n != 2 {
		t.Fatalf("%d audit entries, want 2", n)
	}
}
