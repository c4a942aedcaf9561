package main

import (
	"testing"
	"time"

	"github.com/paygate/gateway/internal/fixture"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/platform"
)

// TestLedgerIncomeCLI: gateway ledger income prints the fee income of the
// days asked, both included, by type, method and currency, from the
// journal's copy the projection made.
func TestLedgerIncomeCLI(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	rdb := testenv.Client(t, e.redisURL)
	ch, err := platform.OpenClickHouse(e.chDSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Close() })
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	mix := fixture.PostLedgerMix(t, j, "4001", day)
	fixture.ProjectJournal(t, rdb, ch)
	fixture.InsertOrders(t, ch, mix.Orders)
	journaltest.Check(t, rdb)
	tests := []struct {
		name     string
		from, to string
		want     map[string]string // type/method/currency → fees
	}{
		{"the payments' day", "2026-11-02", "2026-11-02", map[string]string{"payment/wallet_a/USD": "3.20", "payment/wallet_b/USD": "1.75", "payment/wallet_b/EUR": "0.07"}},
		{"the refund's day", "2026-11-03", "2026-11-03", map[string]string{"refund//USD": "-0.80"}},
		{"a day without fees", "2026-11-05", "2026-11-05", map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rows []incomeLine
			e.cli(&rows, "ledger", "income", "--from", tt.from, "--to", tt.to, "--json")
			got := map[string]string{}
			for _, r := range rows {
				got[r.Type+"/"+r.Method+"/"+r.Currency] = r.Fees
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s: %s, want %s", k, got[k], v)
				}
			}
		})
	}
}
