package ledger

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
)

// TestPosterReleasesCapsOfUnpaidOrders: an order that ends unpaid
// (failed, or cancelled as expiry does) gives its channel's cap back, so
// the next order finds room; a paid order keeps its share.
func TestPosterReleasesCapsOfUnpaidOrders(t *testing.T) {
	for _, typ := range []schema.EventType{schema.EventFailed, schema.EventCancelled} {
		t.Run(string(typ), func(t *testing.T) {
			e := newEnv(t)
			ctx := context.Background()
			caps := channel.NewCaps(e.rdb)
			ref := channel.Ref{Method: schema.MethodWalletA, ID: "alt"}
			cand := channel.Candidate{Ref: ref, Settings: channel.Settings{Weight: 1, DailyCount: 1}}
			o := e.order("3001", 10_00, "")
			o.Channel, o.Status = "alt", schema.StatusCancelled
			if r, err := caps.Reserve(ctx, cand, o.ID, 10_00, paidAt); err != nil || r != channel.ReservedOK {
				t.Fatalf("reserve: %v %v", r, err)
			}
			if r, _ := caps.Reserve(ctx, cand, "other", 10_00, paidAt); r != channel.FullCount {
				t.Fatalf("second reservation %v, want full", r)
			}
			run(t, e.poster("p1", nil))
			e.emit(typ, o, nil)
			testenv.Eventually(t, 10*time.Second, "the order's cap is given back", func() bool {
				r, err := caps.Reserve(ctx, cand, "other", 10_00, paidAt)
				return err == nil && r == channel.ReservedOK
			})
		})
	}
}

// TestPosterCountsPaidPerChannelDay: a paid order counts once in its
// channel's paid orders of the day in the channel's zone, and in the
// per-channel metric, however often its event is read.
func TestPosterCountsPaidPerChannelDay(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	reg := prometheus.NewRegistry()
	p := e.poster("p1", reg)
	o := e.order("3001", 25_00, "")
	o.Channel = "alt"
	o.CompletedAt = time.Date(2026, 11, 28, 16, 30, 0, 0, time.UTC) // 00:30 on the 29th in Shanghai
	ev := schema.Event{Type: schema.EventPaid, Order: *o}
	dir := channel.NewDirectory(e.rdb, time.Hour, quiet())
	if err := channel.NewStore(e.rdb).Set(ctx, channel.Ref{Method: schema.MethodWalletA, ID: "alt"},
		channel.Settings{Weight: 1, TimeZone: "Asia/Shanghai"}, testEntry()); err != nil {
		t.Fatal(err)
	}
	if err := dir.Load(ctx); err != nil {
		t.Fatal(err)
	}
	p.WithChannels(dir)
	for range 2 {
		all := []prepared{{stream: "s", id: "1-0", done: true, ev: &ev}}
		if p.applyChannels(ctx, all); !all[0].done {
			t.Fatal("the paid event was left pending")
		}
	}
	h, err := e.rdb.HGetAll(ctx, schema.ChannelPaidKey("wallet_a.alt", "20261129")).Result()
	if err != nil {
		t.Fatal(err)
	}
	if h["n"] != "1" || h["amt"] != "2500" {
		t.Errorf("paid counters of the 29th = %v, want n 1, amt 2500", h)
	}
	if got := testutil.ToFloat64(p.m.channelPaid.WithLabelValues("wallet_a.alt", "USD")); got != 2500 {
		t.Errorf("gateway_channel_paid_minor_total = %v, want 2500", got)
	}
}

func testEntry() audit.Entry {
	return audit.Entry{At: time.Now().UTC(), Realm: audit.RealmCLI, Action: "channel.set", Target: "channel", Source: "cli"}
}

// TestPosterLeavesEventPendingWhenReleaseFails: a cap that could not be
// given back (Redis unreachable) leaves the order's event pending, so it
// comes back and the release is tried again.
func TestPosterLeavesEventPendingWhenReleaseFails(t *testing.T) {
	e := newEnv(t)
	p := e.poster("p1", nil)
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	t.Cleanup(func() { _ = down.Close() })
	p.caps = channel.NewCaps(down)
	o := e.order("3001", 10_00, "")
	o.Channel, o.Status = "alt", schema.StatusCancelled
	f := schema.EventFields(schema.EventCancelled, o.UpdatedAt, o)
	vals := map[string]any{}
	for i := 0; i+1 < len(f); i += 2 {
		vals[f[i].(string)] = f[i+1]
	}
	all := []prepared{p.prepare(context.Background(), schema.EventsKey(0), redis.XMessage{ID: "1-0", Values: vals})}
	if p.applyChannels(context.Background(), all); all[0].post || !all[0].done && all[0].ev == nil {
		t.Fatalf("prepared %+v", all[0])
	}
	if all[0].post || all[0].done {
		t.Errorf("post %v, done %v; want the event left pending", all[0].post, all[0].done)
	}
}
