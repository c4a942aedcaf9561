package operator

import (
	"context"
	"testing"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

func TestSetPayoutTerms(t *testing.T) {
	ctx := context.Background()
	m, rdb, appid := moneyEnv(t)
	in := PayoutTermsInput{AppID: appid, Currency: "USD", Min: "10.00", Fee: "1.50", AutoApprove: "50.00"}
	if _, err := m.SetPayoutTerms(ctx, opAdmin, in); err != nil {
		t.Fatal(err)
	}
	got, err := m.Terms(ctx, opSupport, appid)
	if err != nil {
		t.Fatal(err)
	}
	if p := got.PayoutsFor("USD"); p != (merchant.PayoutTerms{Min: 1000, Fee: 150, AutoApproveBelow: 5000}) {
		t.Fatalf("USD payout terms %+v", p)
	}
	// The maker-checker memory: this admin changed the merchant's payout
	// settings and may not decide its payouts for a while.
	changers, err := rdb.ZRange(ctx, schema.PayoutChangesKey(appid), 0, -1).Result()
	if err != nil || len(changers) != 1 || changers[0] != ChangerKey(opAdmin) {
		t.Fatalf("payout changes noted %v, %v; want [%s]", changers, err, ChangerKey(opAdmin))
	}
	// The settlement terms set afterwards keep the payout terms.
	next := got
	next.DelayDays = 3
	if _, err := m.SetTerms(ctx, opAdmin, appid, next); err != nil {
		t.Fatal(err)
	}
	if again, _ := m.Terms(ctx, opSupport, appid); again.PayoutsFor("USD").Fee != 150 {
		t.Fatalf("payout terms lost: %+v", again)
	}
	// All zero removes the currency's terms.
	if _, err := m.SetPayoutTerms(ctx, opAdmin, PayoutTermsInput{AppID: appid, Currency: "USD"}); err != nil {
		t.Fatal(err)
	}
	if again, _ := m.Terms(ctx, opSupport, appid); again.Payouts != nil {
		t.Fatalf("payout terms not removed: %+v", again.Payouts)
	}
}

func TestSetPayoutTermsRefused(t *testing.T) {
	ctx := context.Background()
	m, _, appid := moneyEnv(t)
	cases := []struct {
		name  string
		actor access.Actor
		in    PayoutTermsInput
		kind  platform.Kind
	}{
		{"support reads only", opSupport, PayoutTermsInput{AppID: appid, Currency: "USD", Fee: "1.00"}, platform.KindForbidden},
		{"merchant user", mOwner, PayoutTermsInput{AppID: appid, Currency: "USD", Fee: "1.00"}, platform.KindForbidden},
		{"unknown currency", opAdmin, PayoutTermsInput{AppID: appid, Currency: "XXX", Fee: "1.00"}, platform.KindInvalidParameter},
		{"negative fee", opAdmin, PayoutTermsInput{AppID: appid, Currency: "USD", Fee: "-1.00"}, platform.KindInvalidParameter},
		{"not an amount", opAdmin, PayoutTermsInput{AppID: appid, Currency: "USD", Min: "ten"}, platform.KindInvalidParameter},
		{"another merchant", opAdmin, PayoutTermsInput{AppID: "999999", Currency: "USD", Fee: "1.00"}, platform.KindNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := m.SetPayoutTerms(ctx, c.actor, c.in); platform.KindOf(err) != c.kind {
				t.Fatalf("got %v, want %s", err, c.kind)
			}
		})
	}
}

// A Money without a place to note changes refuses every change of terms:
// an unnoted change would let its maker approve what it made possible.
func TestTermsUnchangedWithoutChangeNotes(t *testing.T) {
	ctx := context.Background()
	m, _, appid := moneyEnv(t)
	m.WithPayouts(nil)
	if _, err := m.SetTerms(ctx, opAdmin, appid, merchant.DefaultTerms()); platform.KindOf(err) != platform.KindUnavailable {
		t.Fatalf("terms changed without noting: %v", err)
	}
}
