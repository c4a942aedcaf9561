package operator

import (
	"context"
	"testing"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// TestMerchantWritesAuditInTheirOwnStep: a credit and a limit change
// append their entry in the write's own step, to the audit stream of the
// write's hash tag (the home shard's for a credit, {merchants} for an
// account field), exactly once; one on an unknown merchant changes nothing
// and leaves no entry anywhere.
func TestMerchantWritesAuditInTheirOwnStep(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, action string
		stream       func(appid string) string
		do           func(m *Merchants, appid string) error
	}{
		{"credit", "merchant.credit", func(appid string) string { return schema.AuditKey(schema.HomeShard(appid).Tag()) },
			func(m *Merchants, appid string) error {
				_, err := m.Credit(ctx, opAdmin, appid, "CNY", 100, "")
				return err
			}},
		{"set limits", "merchant.set_limits", func(string) string { return schema.AuditKey("{merchants}") },
			func(m *Merchants, appid string) error {
				_, err := m.SetLimits(ctx, opAdmin, appid, merchant.LimitOverrides{Create: "5/s"})
				return err
			}},
		{"clear method limits", "merchant.clear_method_limits", func(string) string { return schema.AuditKey("{merchants}") },
			func(m *Merchants, appid string) error {
				_, err := m.SetMethodLimits(ctx, opAdmin, appid, schema.MethodWalletA, schema.AmountLimits{}, true)
				return err
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rdb := testenv.Redis(t)
			st := merchant.NewStore(rdb)
			m := NewMerchants(st, audit.NewLog(rdb), dispatcher.NewDestinations(false)).WithJournal(testJournal(rdb))
			shop, err := st.Create(ctx, merchant.NewAccount{Name: "shop"})
			if err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, rdb)
			if err := tc.do(m, "99999"); err == nil {
				t.Fatal("a write on an unknown merchant was done")
			}
			if snapshot(t, rdb) != before {
				t.Fatal("a refused write changed Redis (an entry included)")
			}
			if err := tc.do(m, shop.AppID); err != nil {
				t.Fatal(err)
			}
			rows, err := audit.Read(ctx, rdb, tc.stream(shop.AppID), 10)
			if err != nil || len(rows) != 1 || rows[0].Action != tc.action || rows[0].AppID != shop.AppID {
				t.Fatalf("entries in the write's own stream %+v (%v), want one %s", rows, err, tc.action)
			}
			if other, _ := audit.Read(ctx, rdb, schema.AuditKey(schema.AuditTag), 10); len(other) != 0 {
				t.Fatalf("entries appended apart from the write: %+v", other)
			}
		})
	}
}
