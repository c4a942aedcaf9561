package fees

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// TestResolver: zero until an operator sets a schedule; a merchant's
// override (a zero one too) wins over the default, which every other
// merchant pays; a change reaches the copy when the version moved, and a
// poll that finds the version unchanged reads nothing more.
func TestResolver(t *testing.T) {
	ctx := context.Background()
	rdb := newRedis(t)
	st := NewStore(rdb)
	ms := merchant.NewStore(rdb)
	a, _ := ms.Create(ctx, merchant.NewAccount{Name: "A"})
	b, _ := ms.Create(ctx, merchant.NewAccount{Name: "B"})
	r := NewResolver(st, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := r.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if f := r.For(a.AppID, schema.MethodWalletA, "USD"); !f.Zero() {
		t.Fatalf("before any schedule: %+v", f)
	}
	def, own := target(t, "", "wallet_a", "USD"), target(t, a.AppID, "wallet_a", "USD")
	dflt, mine := schema.FeeSchedule{Bps: 290, Fixed: 30}, schema.FeeSchedule{Bps: 100}
	set := func(tg Target, f schema.FeeSchedule) {
		t.Helper()
		if err := st.Set(ctx, tg, f, entryFor("fees.set", tg)); err != nil {
			t.Fatal(err)
		}
		r.refresh(ctx)
	}
	set(def, dflt)
	set(own, mine)
	for _, c := range []struct {
		name  string
		appid string
		m     schema.Method
		cur   string
		want  schema.FeeSchedule
	}{
		{"override beats default", a.AppID, schema.MethodWalletA, "USD", mine},
		{"another merchant pays the default", b.AppID, schema.MethodWalletA, "USD", dflt},
		{"another currency has none", a.AppID, schema.MethodWalletA, "CNY", schema.FeeSchedule{}},
		{"another method has none", b.AppID, schema.MethodWalletB, "USD", schema.FeeSchedule{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := r.For(c.appid, c.m, c.cur); got != c.want {
				t.Fatalf("For(%s, %s, %s) = %+v, want %+v", c.appid, c.m, c.cur, got, c.want)
			}
		})
	}
	t.Run("zero override beats default", func(t *testing.T) {
		set(own, schema.FeeSchedule{})
		if got := r.For(a.AppID, schema.MethodWalletA, "USD"); !got.Zero() {
			t.Fatalf("zero override: %+v", got)
		}
	})
	t.Run("unchanged version reads nothing", func(t *testing.T) {
		rdb.HSet(ctx, schema.FeesKey, def.Field(), "1:0:0:0") // behind the version's back
		r.refresh(ctx)
		if got := r.For(b.AppID, schema.MethodWalletA, "USD"); got != dflt {
			t.Fatalf("reloaded without a version bump: %+v", got)
		}
		rdb.Incr(ctx, schema.FeesVersionKey)
		r.refresh(ctx)
		if got := r.For(b.AppID, schema.MethodWalletA, "USD"); got != (schema.FeeSchedule{Bps: 1}) {
			t.Fatalf("after the bump: %+v", got)
		}
	})
}
