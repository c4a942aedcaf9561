package command

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/fees"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/schema"
)

// operatorFees is the operator's side of the schedules over the harness's
// Redis, and the resolver the use cases read them through.
type operatorFees struct {
	t   *testing.T
	st  *fees.Store
	res *fees.Resolver
}

func withOperatorFees(t *testing.T, h *harness) *operatorFees {
	t.Helper()
	st := fees.NewStore(h.rdb)
	res := fees.NewResolver(st, time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := res.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.create.init.fees = res // the initiator create and the choice share
	return &operatorFees{t: t, st: st, res: res}
}

// set makes the operator's schedule of appid ("" the default) and reloads
// the resolver as its poll would.
func (f *operatorFees) set(appid string, m schema.Method, cur string, s schema.FeeSchedule) {
	f.t.Helper()
	tg, err := fees.ParseTarget(appid, string(m), cur)
	if err != nil {
		f.t.Fatal(err)
	}
	e := audit.Entry{At: time.Now(), ActorID: "test", Realm: audit.RealmCLI, Action: "fees.set", Target: tg.String(), Source: "cli"}
	if err := f.st.Set(context.Background(), tg, s, e); err != nil {
		f.t.Fatal(err)
	}
	if err := f.res.Load(context.Background()); err != nil {
		f.t.Fatal(err)
	}
}

// feeField is the order hash's fee field and whether it exists.
func (h *harness) feeField(t *testing.T, id string) (string, bool) {
	t.Helper()
	shard, _ := schema.ParseOrderID(id)
	v, err := h.rdb.HGet(context.Background(), schema.OrderKey(shard, id), schema.FFee).Result()
	return v, err == nil
}

// TestFeeRecordedAtInit: with no schedule an order gains no fee field; a
// create whose method is known records the schedule in force (the
// merchant's override over the default) and keeps it when the operator
// changes the schedule later; a select order records nothing until the
// payer's choice, then the schedule in force at the choice.
func TestFeeRecordedAtInit(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	f := withOperatorFees(t, h)
	wallet := func() string {
		t.Helper()
		p := h.baseParams()
		p["currency"] = "USD"
		return h.createOK(p)["paymentId"].(string)
	}

	t.Run("zero writes no field", func(t *testing.T) {
		if v, ok := h.feeField(t, wallet()); ok {
			t.Fatalf("an order without a schedule has fee %q", v)
		}
	})

	first := schema.FeeSchedule{Bps: 290, Fixed: 30}
	f.set("", schema.MethodWalletA, "USD", first)
	id := wallet()
	t.Run("recorded at create", func(t *testing.T) {
		if v, _ := h.feeField(t, id); v != first.String() {
			t.Fatalf("fee %q, want %q", v, first.String())
		}
	})

	f.set("", schema.MethodWalletA, "USD", schema.FeeSchedule{Bps: 500})
	t.Run("unchanged when the operator changes it", func(t *testing.T) {
		if v, _ := h.feeField(t, id); v != first.String() {
			t.Fatalf("fee %q after the change, want the recorded %q", v, first.String())
		}
		if v, _ := h.feeField(t, wallet()); v != "500:0:0:0" {
			t.Fatalf("a new order's fee %q, want the new schedule", v)
		}
	})

	t.Run("override beats default", func(t *testing.T) {
		f.set(h.acct.AppID, schema.MethodWalletA, "USD", schema.FeeSchedule{Bps: 100, Min: 50})
		if v, _ := h.feeField(t, wallet()); v != "100:0:50:0" {
			t.Fatalf("fee %q, want the merchant's override", v)
		}
	})

	t.Run("balance order at create", func(t *testing.T) {
		f.set("", schema.MethodBalance, "USD", schema.FeeSchedule{Fixed: 10})
		if _, err := journaltest.Credit(ctx, h.rdb, h.acct.AppID, "USD", 150_00); err != nil {
			t.Fatal(err)
		}
		p := h.baseParams()
		p["paymentMethod"], p["currency"] = "balance", "USD"
		id := h.createOK(p)["paymentId"].(string)
		if v, _ := h.feeField(t, id); v != "0:10:0:0" {
			t.Fatalf("balance order fee %q", v)
		}
		// Its journal transaction carries the fee line: of the 100.00 taken,
		// 0.10 is the platform's fee, the rest spent.
		all := journalEntries(t, h.rdb, h.acct.AppID)
		want := []journal.Posting{{Account: journal.Merchant(h.acct.AppID, journal.Available), Currency: "USD", Amount: -100_00},
			{Account: journal.Spent, Currency: "USD", Amount: 99_90}, {Account: journal.Fees, Currency: "USD", Amount: 10}}
		if last := all[len(all)-1]; last.Key != "balance_order:"+id || !slices.Equal(last.Postings, want) {
			t.Fatalf("balance order's journal entry %+v, want %+v", last, want)
		}
		// Its full refund gives back what was spent; the fee stays the
		// platform's (the default terms keep it).
		if r := h.refund(refundParams(h, id, "100")); r.Status != 200 || r.Data(t)["status"] != "succeeded" {
			t.Fatalf("refund: %s", r.Raw)
		}
		wantBalance(t, h, "USD", 149_90)
		plat, err := h.store.Journal().PlatformBalances(ctx)
		if err != nil || plat[journal.Spent]["USD"] != 0 || plat[journal.Fees]["USD"] != 10 {
			t.Fatalf("platform accounts %v %v", plat, err)
		}
	})

	t.Run("select records at the choice", func(t *testing.T) {
		f.set("", schema.MethodCryptohost, "USD", schema.FeeSchedule{Bps: 150})
		sel := h.selectOrder("USD", "100", "").ID
		if v, ok := h.feeField(t, sel); ok {
			t.Fatalf("a select order has fee %q before the choice", v)
		}
		f.set("", schema.MethodCryptohost, "USD", schema.FeeSchedule{Bps: 175})
		if _, err := h.uc.Choose.ChooseMethod(ctx, sel, schema.MethodCryptohost); err != nil {
			t.Fatal(err)
		}
		if v, _ := h.feeField(t, sel); v != "175:0:0:0" {
			t.Fatalf("fee %q after the choice, want the schedule in force then", v)
		}
		f.set("", schema.MethodCryptohost, "USD", schema.FeeSchedule{Bps: 900})
		if v, _ := h.feeField(t, sel); v != "175:0:0:0" {
			t.Fatalf("fee %q after a later change, want the recorded one", v)
		}
	})

	t.Run("a choice without a schedule writes no field", func(t *testing.T) {
		sel := h.selectOrder("USD", "100", "").ID
		if _, err := h.uc.Choose.ChooseMethod(ctx, sel, schema.MethodCryptoPSP); err != nil {
			t.Fatal(err)
		}
		if v, ok := h.feeField(t, sel); ok {
			t.Fatalf("a choice with no schedule wrote fee %q", v)
		}
	})

	t.Run("two-step choice records, confirm keeps it", func(t *testing.T) {
		f.set("", schema.MethodFiatPSP, "USD", schema.FeeSchedule{Bps: 300})
		sel := h.selectOrder("USD", "100", "").ID
		if _, err := h.uc.Choose.ChooseMethod(ctx, sel, schema.MethodFiatPSP); err != nil {
			t.Fatal(err)
		}
		f.set("", schema.MethodFiatPSP, "USD", schema.FeeSchedule{Bps: 1})
		if _, err := h.uc.Confirm.ConfirmFiatpsp(ctx, sel, "12"); err != nil {
			t.Fatal(err)
		}
		if v, _ := h.feeField(t, sel); v != "300:0:0:0" {
			t.Fatalf("fee %q after the confirm", v)
		}
	})
}

// countingHook counts the commands and pipelines a client sends.
type countingHook struct{ n atomic.Int64 }

func (*countingHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *countingHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { c.n.Add(1); return next(ctx, cmd) }
}
func (c *countingHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { c.n.Add(1); return next(ctx, cmds) }
}

// TestFeeNoRoundTrip: a create sends Redis as many commands with the
// schedules' copy as without schedules at all, a schedule in force or not:
// the schedule comes from the process's copy, never from Redis.
func TestFeeNoRoundTrip(t *testing.T) {
	h := newRedisHarness(t)
	hook := &countingHook{}
	h.rdb.AddHook(hook)
	create := func() int64 {
		t.Helper()
		before := hook.n.Load()
		h.createOK(h.baseParams())
		return hook.n.Load() - before
	}
	create() // the merchant's account into the directory's cache
	without := create()
	if without == 0 {
		t.Fatal("no Redis call counted")
	}
	f := withOperatorFees(t, h)
	if zero := create(); zero != without {
		t.Fatalf("a create sends %d Redis calls with no schedule set, %d without the copy", zero, without)
	}
	f.set("", schema.MethodWalletA, "CNY", schema.FeeSchedule{Bps: 290})
	if with := create(); with != without {
		t.Fatalf("a create sends %d Redis calls with a schedule, %d without the copy", with, without)
	}
}
