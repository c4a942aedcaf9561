package account

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/schema"
)

// usableDestination saves a TRC20 destination of appid past its
// cooling-off, as days after an owner added it.
func (e *env) usableDestination(appid string) string {
	e.t.Helper()
	j, err := journal.New(journal.Config{}, e.rdb, nil, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	cfg := payout.Defaults()
	cfg.CoolingOff = 0
	s, err := payout.New(cfg, e.rdb, j, nil, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	d, err := s.AddDestination(context.Background(), payout.Destination{AppID: appid, Kind: payout.TRC20, Label: "Treasury",
		Address: "TMQFT4gx9wYcNLhXqVKGyQoQyd2KJzzrNR"}, "user:seed",
		audit.Entry{At: time.Now(), ActorID: "seed", Realm: audit.RealmMerchant, Role: "owner", Action: "payout.seed", Source: "127.0.0.1"})
	if err != nil {
		e.t.Fatal(err)
	}
	return d.ID
}

// fund tops appid's USD balance up by amount and sets its USD payout
// terms: minimum 5.00, fee 1.00.
func (e *env) fund(appid string, amount schema.Amount) {
	e.t.Helper()
	ctx := context.Background()
	j, err := journal.New(journal.Config{}, e.rdb, nil, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	ref := appid + "-" + time.Now().Format("150405.000000000")
	if _, err := j.Post(ctx, journal.Tx{Key: "topup:" + ref, Kind: journal.KindTopUp, AppID: appid, Ref: ref, At: time.Now(),
		Postings: []journal.Posting{{Account: journal.TopUp, Currency: "USD", Amount: -amount},
			{Account: journal.Merchant(appid, journal.Available), Currency: "USD", Amount: amount}}}); err != nil {
		e.t.Fatal(err)
	}
	a, err := e.merchants.Get(ctx, appid)
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.merchants.SetTerms(ctx, appid, a.Terms.WithPayouts("USD", merchant.PayoutTerms{Min: 5_00, Fee: 1_00})); err != nil {
		e.t.Fatal(err)
	}
}

// payoutAsk is the confirmed form of a payout of amount USD to dest.
func payoutAsk(dest, amount, key string) url.Values {
	return url.Values{"destination": {dest}, "amount": {amount}, "currency": {"USD"}, "confirm": {"1"}, "key": {key}}
}

func (e *env) heldUSD(appid string) schema.Amount {
	e.t.Helper()
	j, _ := journal.New(journal.Config{}, e.rdb, nil, nil)
	b, err := j.Balance(context.Background(), appid, "USD")
	if err != nil {
		e.t.Fatal(err)
	}
	return b.PayoutHold
}

// TestAddDestinationOwnersOnly: the destination form is refused by its
// route to every role but the owner (403, nothing changed), and the owner
// without a valid code changes nothing either.
func TestAddDestinationOwnersOnly(t *testing.T) {
	e := newEnv(t)
	vals := func(s *access.Session) url.Values {
		return url.Values{"csrf": {s.CSRF}, "kind": {"bank"}, "holder": {"Ana"}, "bank": {"Banco"}, "account": {"ES12345"}, "code": {"000000"}}
	}
	for _, r := range []access.Role{access.RoleDeveloper, access.RoleFinance, access.RoleViewer, access.RoleOwner} {
		s := e.person(r)
		before := e.fingerprint()
		res := e.do(s, http.MethodPost, "/payouts/destinations", vals(s))
		body, _ := io.ReadAll(res.Body)
		want := http.StatusForbidden
		if r == access.RoleOwner {
			want = http.StatusBadRequest // the code is wrong
		}
		if res.StatusCode != want || e.fingerprint() != before {
			t.Fatalf("%s: %d (want %d), changed %v", r, res.StatusCode, want, e.fingerprint() != before)
		}
		if r != access.RoleOwner && strings.Contains(string(body), "your role does not allow this action") {
			t.Fatalf("%s reached the use case: the route does not check the permission", r)
		}
	}
}
