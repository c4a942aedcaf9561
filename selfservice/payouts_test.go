package selfservice

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/platform"
)

// destination saves a usable TRC20 destination of appid.
func (e *env) destination(appid string) string {
	e.t.Helper()
	d, err := e.payouts.AddDestination(context.Background(), payout.Destination{AppID: appid, Kind: payout.TRC20,
		Address: "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNR"}, "user:seed",
		audit.Entry{At: time.Now(), ActorID: "seed", Realm: audit.RealmMerchant, Role: "owner", Action: "payout.seed", Source: "127.0.0.1"})
	if err != nil {
		e.t.Fatal(err)
	}
	return d.ID
}

func (e *env) topUp(appid string) {
	e.t.Helper()
	j, _ := journal.New(journal.Config{}, e.rdb, nil, nil)
	ref := appid + "-" + rand()
	if _, err := j.Post(context.Background(), journal.Tx{Key: "topup:" + ref, Kind: journal.KindTopUp, AppID: appid, Ref: ref, At: time.Now(),
		Postings: []journal.Posting{{Account: journal.TopUp, Currency: "USD", Amount: -100_00},
			{Account: journal.Merchant(appid, journal.Available), Currency: "USD", Amount: 100_00}}}); err != nil {
		e.t.Fatal(err)
	}
}

// TestPayoutsUseCasesCheckTheRole: called directly (past any route), each
// payout use case refuses the roles that may not use it, and an operator's
// session, with nothing changed; the allowed roles go through.
func TestPayoutsUseCasesCheckTheRole(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, false)
	e.topUp(e.shop.AppID)
	payers := []access.Role{access.RoleOwner, access.RoleFinance}
	cases := []struct {
		name    string
		allowed []access.Role
		do      func(w access.Actor) error
	}{
		{"overview", everyone, func(w access.Actor) error { _, err := e.svc.Payouts.Overview(ctx, w, 10); return err }},
		{"preview", payers, func(w access.Actor) error {
			_, err := e.svc.Payouts.Preview(ctx, w, PayoutAsk{Destination: e.destination(e.shop.AppID), Amount: "1.00", Currency: "USD"})
			return err
		}},
		{"request", payers, func(w access.Actor) error {
			_, err := e.svc.Payouts.Request(ctx, w, PayoutAsk{Destination: e.destination(e.shop.AppID), Amount: "1.00", Currency: "USD"})
			return err
		}},
		{"remove destination", ownerOnly, func(w access.Actor) error {
			return e.svc.Payouts.RemoveDestination(ctx, w, e.destination(e.shop.AppID))
		}},
		{"add destination", nil, func(w access.Actor) error { // the owner is refused too: no TOTP set up
			_, err := e.svc.Payouts.AddDestination(ctx, w, payout.Destination{Kind: payout.Bank, Holder: "A", Bank: "B", Account: "1"}, "123456")
			return err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, role := range everyone {
				err := c.do(who(e.shop.AppID, role))
				if slices.Contains(c.allowed, role) != (err == nil) {
					t.Fatalf("%s: %v", role, err)
				}
				if err != nil && kindOf(err) != platform.KindForbidden {
					t.Fatalf("%s refused with %v, want forbidden", role, err)
				}
			}
			if err := c.do(operator(e.shop.AppID)); kindOf(err) != platform.KindForbidden {
				t.Fatalf("an operator's session: %v", err)
			}
		})
	}
}

// TestPayoutToAnotherMerchantsDestination: a finance user of one merchant
// naming another merchant's destination by its id finds none (404), holds
// nothing, and previews nothing.
func TestPayoutToAnotherMerchantsDestination(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, false)
	e.topUp(e.shop.AppID)
	theirs := e.destination(e.other.AppID)
	fin := who(e.shop.AppID, access.RoleFinance)
	before := e.fingerprint()
	ask := PayoutAsk{Destination: theirs, Amount: "10.00", Currency: "USD", Key: "k1"}
	if _, err := e.svc.Payouts.Preview(ctx, fin, ask); kindOf(err) != platform.KindNotFound {
		t.Fatalf("preview: %v", err)
	}
	if _, err := e.svc.Payouts.Request(ctx, fin, ask); kindOf(err) != platform.KindNotFound {
		t.Fatalf("request: %v", err)
	}
	if e.fingerprint() != before {
		t.Fatal("a refused payout changed something")
	}
}
