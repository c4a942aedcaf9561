package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/fixture"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider/statement"
	"github.com/paygate/gateway/provider/walleta"
	"github.com/paygate/gateway/schema"
)

// TestReconcileCLI: gateway reconcile imports wallet_a's statement of a day
// with one payment left off: one matched line posted, the missing one
// reported, the receivable cleared by the line's net alone; the same file
// again posts nothing.
func TestReconcileCLI(t *testing.T) {
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
	var wa []*schema.Order
	for _, o := range mix.Orders {
		if o.Method == schema.MethodWalletA {
			wa = append(wa, o)
		}
	}
	if len(wa) != 2 {
		t.Fatalf("%d wallet_a payments in the mix", len(wa))
	}
	var b bytes.Buffer
	err = statement.Write(&b, walleta.StatementShape, func(y func(statement.Row) bool) {
		o := wa[0] // wa[1] is left off
		y(statement.Row{Ref: "WA1", Order: o.ID, Currency: o.Currency, Account: walleta.SandboxAppID, Amount: int64(o.Amount), At: o.CompletedAt})
	})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "wallet_a-2026-11-02.csv")
	if err := os.WriteFile(file, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	type report struct {
		Again           bool
		Matched, Posted int
		Findings        map[string]int
		Receivable      map[string]int64
	}
	// The mix's refund already moved the USD receivable; the import moves it
	// by the matched line's net alone.
	before, err := j.PlatformBalances(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	recv := before[journal.Receivable("wallet_a.default")]
	for i, want := range []report{{Matched: 1, Posted: 1}, {Again: true, Matched: 1}} {
		var got report
		e.cli(&got, "reconcile", "--channel", "wallet_a.default", "--date", "2026-11-02", "--json", file)
		if got.Again != want.Again || got.Matched != want.Matched || got.Posted != want.Posted ||
			len(got.Findings) != 1 || got.Findings["missing_at_provider"] != 1 {
			t.Fatalf("import %d: %+v", i+1, got)
		}
		if got.Receivable["USD"] != int64(recv["USD"]+wa[0].Amount) || got.Receivable["EUR"] != int64(recv["EUR"]) {
			t.Fatalf("import %d: receivable %v, want %v with USD up by %s", i+1, got.Receivable, recv, wa[0].Amount)
		}
	}
}
