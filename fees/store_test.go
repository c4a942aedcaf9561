package fees

import (
	"context"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/merchant"
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

func entryFor(action string, tg Target) audit.Entry {
	return audit.Entry{At: time.Now(), ActorID: "tester", Realm: audit.RealmCLI, Action: action, Target: tg.String(),
		AppID: tg.AppID, Source: "cli"}
}

func target(t *testing.T, appid, m, cur string) Target {
	t.Helper()
	tg, err := ParseTarget(appid, m, cur)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func auditLen(t *testing.T, rdb *redis.Client) int64 {
	t.Helper()
	return rdb.XLen(context.Background(), auditStream).Val()
}

// TestStoreSetClear: every change is the schedule, the version bump and
// one audit entry; a refused one (an unknown merchant, nothing to clear)
// is none of them.
func TestStoreSetClear(t *testing.T) {
	ctx := context.Background()
	rdb := newRedis(t)
	st := NewStore(rdb)
	m, err := merchant.NewStore(rdb).Create(ctx, merchant.NewAccount{Name: "Tea Shop"})
	if err != nil {
		t.Fatal(err)
	}
	def, own := target(t, "", "wallet_a", "USD"), target(t, m.AppID, "wallet_a", "USD")
	steps := []struct {
		name    string
		do      func() error
		kind    platform.Kind // "" = done
		entries int64
	}{
		{"set default", func() error {
			return st.Set(ctx, def, schema.FeeSchedule{Bps: 290, Fixed: 30}, entryFor("fees.set", def))
		}, "", 1},
		{"set override", func() error { return st.Set(ctx, own, schema.FeeSchedule{}, entryFor("fees.set", own)) }, "", 2},
		{"override of no merchant", func() error {
			tg := target(t, "999999", "wallet_a", "USD")
			return st.Set(ctx, tg, schema.FeeSchedule{Bps: 1}, entryFor("fees.set", tg))
		}, platform.KindNotFound, 2},
		{"clear override", func() error { return st.Clear(ctx, own, entryFor("fees.clear", own)) }, "", 3},
		{"clear it again", func() error { return st.Clear(ctx, own, entryFor("fees.clear", own)) }, platform.KindNotFound, 3},
		{"invalid schedule", func() error { return st.Set(ctx, def, schema.FeeSchedule{Bps: 10001}, entryFor("fees.set", def)) }, platform.KindInvalidParameter, 3},
	}
	for _, s := range steps {
		ver := rdb.Get(ctx, schema.FeesVersionKey).Val()
		err := s.do()
		if s.kind == "" && err != nil || s.kind != "" && platform.KindOf(err) != s.kind {
			t.Fatalf("%s: %v, want kind %q", s.name, err, s.kind)
		}
		if n := auditLen(t, rdb); n != s.entries {
			t.Fatalf("%s: %d audit entries, want %d", s.name, n, s.entries)
		}
		if moved := rdb.Get(ctx, schema.FeesVersionKey).Val() != ver; moved != (s.kind == "") {
			t.Fatalf("%s: version moved %v", s.name, moved)
		}
	}
	list, err := st.List(ctx)
	if err != nil || len(list) != 1 || list[0].Target != def || list[0].Fee != (schema.FeeSchedule{Bps: 290, Fixed: 30}) {
		t.Fatalf("list %+v %v", list, err)
	}
}

// TestListOrder: defaults first, then overrides by appid, by method in
// the table's order.
func TestListOrder(t *testing.T) {
	h := map[string]string{"1002:wallet_a:USD": "1:0:0:0", "*:wallet_b:USD": "2:0:0:0", "1001:wallet_b:CNY": "3:0:0:0",
		"*:wallet_a:CNY": "4:0:0:0", "1001:wallet_a:USD": "0:0:0:0"}
	got, err := decodeAll(h)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, s := range got {
		order = append(order, s.Field())
	}
	want := []string{"*:wallet_a:CNY", "*:wallet_b:USD", "1001:wallet_a:USD", "1001:wallet_b:CNY", "1002:wallet_a:USD"}
	if len(order) != len(want) {
		t.Fatalf("order %v", order)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order %v, want %v", order, want)
		}
	}
	if _, err := decodeAll(map[string]string{"*:wallet_a:USD": "garbage"}); err == nil {
		t.Fatal("an unreadable schedule was listed")
	}
}
