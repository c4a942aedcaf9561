package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider/walleta"
	"github.com/paygate/gateway/schema"
)

// TestSandboxStatementChargesTheChannelCost: a sandbox channel's simulator
// charges the channel's configured cost, so its statement of the day
// reconciles with the ledger's payments, priced at routing with that cost:
// two payments matched, the one paid after the operator changed the cost
// (a fee the ledger did not price) the one fee difference found.
func TestSandboxStatementChargesTheChannelCost(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.run("migrate")
	var shop account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	e.run("channel", "set", "sandbox.wallet_a.default", "--cost", "150:0.30", "--by", "alice")
	// The ledger role posts the payments the reconciliation reads.
	s := e.serve("GATEWAY_ROLES=command,query,projector,dispatcher,ledger")
	create := func() string {
		t.Helper()
		r := s.create(t, createParams(shop.AppID), shop.APIKey) // 100.50 CNY
		if r.Status != 200 {
			t.Fatalf("create: %+v", r)
		}
		return r.Data["paymentId"].(string)
	}
	pay := func(id string) {
		t.Helper()
		if r := s.sandbox(t, shop.AppID, shop.QueryKey, id, "pay"); r.Status != 200 {
			t.Fatalf("sandbox pay: %+v", r)
		}
	}
	first, second := create(), create()
	pay(first)
	e.run("channel", "set", "sandbox.wallet_a.default", "--cost", "200:0.30", "--by", "alice")
	pay(second)

	day := time.Now().UTC().Format(time.DateOnly)
	res, err := http.Get(s.base + "/sandbox/provider/wallet_a/statement?date=" + day)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	lines, err := walleta.ParseStatement(bytes.NewReader(body), walleta.SandboxAppID)
	fees := map[string]schema.Amount{}
	for _, l := range lines {
		fees[l.OrderID] = l.Fee
	}
	// 1.5 % of 100.50 is 1.51, and 0.30; then 2 %: 2.01 and 0.30.
	if err != nil || len(lines) != 2 || fees[first] != 181 || fees[second] != 231 {
		t.Fatalf("statement %s: lines %+v (%v); want fees 1.81 and 2.31", body, lines, err)
	}
	file := filepath.Join(t.TempDir(), "wallet_a.csv")
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	waitProjected(t, e, first, second)
	var got struct {
		Matched  int
		Findings map[string]int
	}
	e.cli(&got, "reconcile", "--channel", "sandbox.wallet_a.default", "--date", day, "--json", file)
	if got.Matched != 2 || len(got.Findings) != 1 || got.Findings["fee_differs"] != 1 {
		t.Fatalf("reconcile: %+v; want both matched, the one fee difference found", got)
	}
}

// waitProjected waits until the journal's copy in ClickHouse holds the
// payment postings of ids, which the reconciliation reads.
func waitProjected(t *testing.T, e *e2e, ids ...string) {
	t.Helper()
	ch, err := platform.OpenClickHouse(e.chDSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Close() })
	testenv.Eventually(t, 30*time.Second, "the payments projected", func() bool {
		var n uint64
		err := ch.QueryRow(t.Context(), "SELECT count(DISTINCT ref) FROM journal WHERE kind = 'payment' AND ref IN (?, ?)", ids[0], ids[1]).Scan(&n)
		return err == nil && n == uint64(len(ids))
	})
}
