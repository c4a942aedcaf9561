package operator

import (
	"context"
	"strings"
	"testing"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/usdt"
)

// TestEntryCheckedBeforeTheChange: every change here builds its audit entry
// and checks it before it acts. An actor whose entry the log cannot keep
// (a source address over a field's bound: no form value, so no form's
// cleaning stands in for the check) is refused with a 400 and nothing
// changes, no entry either; the same change by a good actor acts.
func TestEntryCheckedBeforeTheChange(t *testing.T) {
	q := newQueue(t)
	ctx := context.Background()
	rdb := q.rdb
	m, s := NewMerchants(merchant.NewStore(rdb), audit.NewLog(rdb), dispatcher.NewDestinations(false)).WithJournal(testJournal(rdb)), newSettings(rdb)
	shop, err := merchant.NewStore(rdb).Create(ctx, merchant.NewAccount{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetNetwork(ctx, opAdmin, NetworkChange{Name: "BEP20", Addresses: &[]string{"0x" + strings.Repeat("5e", 20)}}); err != nil {
		t.Fatal(err)
	}
	mode := string(usdt.ModeDual)
	for _, tc := range []struct {
		name   string
		change func(a actorT) error
	}{
		{"merchant disable", func(a actorT) error { _, err := m.SetDisabled(ctx, a, shop.AppID, true, "chargebacks"); return err }},
		{"merchant create", func(a actorT) error { _, err := m.Create(ctx, a, merchant.NewAccount{Name: "new"}); return err }},
		{"merchant credit", func(a actorT) error { _, err := m.Credit(ctx, a, shop.AppID, "CNY", 100, ""); return err }},
		{"fx set", func(a actorT) error { _, err := s.SetRate(ctx, a, "USDT", "CNY", "7.30", false); return err }},
		{"usdt network set", func(a actorT) error {
			_, err := s.SetNetwork(ctx, a, NetworkChange{Name: "TRC20", Mode: &mode, Addresses: &[]string{"TXLAQ63Xg1NAzckPwKHvzw7CSEmLMEqcdj"}})
			return err
		}},
		{"usdt network remove", func(a actorT) error { return s.RemoveNetwork(ctx, a, "BEP20", false) }},
		{"webhook resend", func(a actorT) error { return q.res.Resend(ctx, dispatcher.ResendAsk{PaymentID: q.dead, By: &a}) }},
		{"exception handle", func(a actorT) error { _, err := q.x.Handle(ctx, a, "mismatch", q.mismatch, "done"); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := opAdmin
			bad.Source = strings.Repeat("1", 300)
			before, resends := snapshot(t, rdb), len(q.res.got)
			if err := tc.change(bad); !isKind(err, platform.KindInvalidParameter) {
				t.Fatalf("%v, want a KindInvalidParameter refusal", err)
			}
			if snapshot(t, rdb) != before || len(q.res.got) != resends {
				t.Fatal("refused, yet something changed")
			}
			if err := tc.change(opAdmin); err != nil {
				t.Fatalf("a good actor: %v", err)
			}
			if snapshot(t, rdb) == before && len(q.res.got) == resends {
				t.Fatal("a good actor changed nothing")
			}
		})
	}
}

type actorT = access.Actor
