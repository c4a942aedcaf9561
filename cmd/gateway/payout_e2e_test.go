package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/payout/rails"
	"github.com/paygate/gateway/usdt/exchange"
	exchangesim "github.com/paygate/gateway/web/sandbox/usdt/exchange"
	tronsim "github.com/paygate/gateway/web/sandbox/usdt/tron"
)

// TestPayoutsEndToEnd: the real binary with the payouts role and the
// sandbox rail. A USDT payout approved with `gateway payout approve` is sent
// on the simulated TRON chain and ends paid with the chain's hash, one
// transfer under its reference; a bank payout approved ends paid with the
// reference of a CSV given to `gateway payout paid --file`. The journal's
// invariants are checked after (newE2E).
func TestPayoutsEndToEnd(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.run("migrate")
	var m account
	e.cli(&m, "merchant", "create", "--name", "payouts", "--sandbox", "--json")
	s := e.serve("GATEWAY_ROLES=command,query,projector,dispatcher,payouts", "GATEWAY_PAYOUT_RAIL=sandbox")
	ctx := context.Background()
	rdb := testenv.Client(t, e.redisURL)
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := payout.Defaults()
	cfg.CoolingOff = 0
	store, err := payout.New(cfg, rdb, j, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := j.TopUp(ctx, "", m.AppID, "USD", 100000, nil); err != nil {
		t.Fatal(err)
	}
	ask := func(d payout.Destination) payoutView {
		t.Helper()
		who := audit.Entry{At: time.Now(), ActorID: "u1", Realm: audit.RealmMerchant, Role: "owner", Action: "payout.request", Source: "127.0.0.1"}
		d.AppID = m.AppID
		got, err := store.AddDestination(ctx, d, "merchant:u1", who)
		if err != nil {
			t.Fatal(err)
		}
		p, _, err := store.Request(ctx, payout.Ask{AppID: m.AppID, Destination: got.ID, Currency: "USD", Amount: 2500, By: "user:u1",
			Limits: payout.Limits{Fee: 50}}, who)
		if err != nil {
			t.Fatal(err)
		}
		var v payoutView
		e.cli(&v, "payout", "approve", p.ID, "--by", "ann", "--json")
		if v.State != "approved" || v.Reviewer != "cli:ann" {
			t.Fatalf("approve: %+v", v)
		}
		return v
	}

	t.Run("usdt sent on the sandbox chain", func(t *testing.T) {
		v := ask(payout.Destination{Kind: payout.TRC20, Address: "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNR"})
		testenv.Eventually(t, 20*time.Second, "the payout paid", func() bool {
			e.cli(&v, "payout", "show", v.ID, "--json")
			return v.State == "paid"
		})
		p, _ := store.Get(ctx, "", v.ID)
		tr, found, err := rails.NewSim(s.base+tronsim.SandboxPath, nil).Lookup(ctx, p.Reference())
		if err != nil || !found || tr.TxHash != v.TxHash || v.TxHash == "" {
			t.Fatalf("paid with %q; the chain has %+v found %v (%v)", v.TxHash, tr, found, err)
		}
	})
	t.Run("bank reference from a CSV", func(t *testing.T) {
		v := ask(payout.Destination{Kind: payout.Bank, Holder: "Ana", Bank: "Banco Uno", Account: "ES9121000418450200051332"})
		var list []payoutView
		e.cli(&list, "payout", "list", "--json")
		if len(list) != 1 || list[0].ID != v.ID || list[0].State != "approved" {
			t.Fatalf("the approved bank payout awaits its reference: %+v", list)
		}
		f := filepath.Join(t.TempDir(), "refs.csv")
		if err := os.WriteFile(f, []byte("\ufeffpayout_id,reference\r\n"+v.ID+",SEPA-1\r\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		e.run("payout", "paid", "--file", f, "--by", "bob")
		e.cli(&v, "payout", "show", v.ID, "--json")
		if v.State != "paid" || v.BankRef != "SEPA-1" {
			t.Fatalf("after the CSV: %+v", v)
		}
		b, err := j.Balance(ctx, m.AppID, "USD")
		if err != nil || b.Available != 100000-2*2550 || b.PayoutHold != 0 {
			t.Fatalf("balance %+v (%v): both payouts and their fees left available", b, err)
		}
	})
	t.Run("usdt on ERC20 withdrawn from the sandbox exchange", func(t *testing.T) {
		v := ask(payout.Destination{Kind: payout.ERC20, Address: "0x94df8b352de7f46f64b01d3666bf6e936e44ce60"})
		testenv.Eventually(t, 20*time.Second, "the payout paid", func() bool {
			e.cli(&v, "payout", "show", v.ID, "--json")
			return v.State == "paid"
		})
		p, _ := store.Get(ctx, "", v.ID)
		c := exchange.Defaults()
		c.BaseURL, c.APIKey, c.Secret = s.base+exchangesim.SandboxPath, exchange.SandboxAPIKey, exchange.SandboxSecret
		w, found, err := exchange.NewClient(c, nil).Withdrawal(ctx, p.Reference(), time.Time{}, time.Time{})
		if err != nil || !found || w.TxID != v.TxHash || w.Network != "ETH" || w.Amount != "25.00" {
			t.Fatalf("paid with %q; the exchange has %+v found %v (%v)", v.TxHash, w, found, err)
		}
	})
}
