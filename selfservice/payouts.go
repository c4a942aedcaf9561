package selfservice

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"strings"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Payouts are the use cases of the Payouts page: every role reads the
// destinations and payouts; owners and finance ask for payouts; only an
// owner, with a fresh code of its own second factor, adds a destination
// (or removes one). Every change is of the actor's own merchant.
type Payouts struct {
	store     *payout.Store // nil: payouts are not served by this node
	accounts  *access.Accounts
	merchants *merchant.Store
	now       func() time.Time
}

// PayoutsOverview is what the page shows.
type PayoutsOverview struct {
	Destinations []payout.Destination // not removed, newest first
	Payouts      []payout.Payout      // newest first
	Terms        merchant.Terms       // the payout terms per currency
	Now          time.Time            // to say which destinations are usable yet
}

var errNoPayouts = platform.Errorf(platform.KindUnavailable, "payouts are not served by this node")

// Overview reads the merchant's destinations, latest payouts and terms.
func (d *Payouts) Overview(ctx context.Context, actor access.Actor, limit int) (PayoutsOverview, error) {
	appid, err := d.ready(actor, access.PermPayoutsRead)
	if err != nil {
		return PayoutsOverview{}, err
	}
	all, err := d.store.Destinations(ctx, appid)
	if err != nil {
		return PayoutsOverview{}, err
	}
	out := PayoutsOverview{Now: d.now()}
	for _, x := range all {
		if x.Removed.IsZero() {
			out.Destinations = append(out.Destinations, x)
		}
	}
	if out.Payouts, err = d.store.List(ctx, appid, 0, limit); err != nil {
		return PayoutsOverview{}, err
	}
	a, err := d.merchants.Get(ctx, appid)
	if err != nil {
		return PayoutsOverview{}, err
	}
	out.Terms = a.Terms
	return out, nil
}

// AddDestination saves a destination after checking the owner's code.
func (d *Payouts) AddDestination(ctx context.Context, actor access.Actor, in payout.Destination, code string) (payout.Destination, error) {
	appid, err := d.ready(actor, access.PermPayoutDestinations)
	if err != nil {
		return payout.Destination{}, err
	}
	if err := d.accounts.ConfirmTOTP(ctx, actor.ID, strings.TrimSpace(code)); err != nil {
		return payout.Destination{}, err
	}
	in.AppID, in.By = appid, "user:"+actor.ID
	return d.store.AddDestination(ctx, in, "user:"+actor.ID, entry(d.now(), actor, payout.ActionDestinationAdd, "", nil))
}

// RemoveDestination removes one of the merchant's destinations: no payout
// goes to it again.
func (d *Payouts) RemoveDestination(ctx context.Context, actor access.Actor, id string) error {
	appid, err := d.ready(actor, access.PermPayoutDestinations)
	if err != nil {
		return err
	}
	return d.store.RemoveDestination(ctx, appid, id, "user:"+actor.ID, entry(d.now(), actor, payout.ActionDestinationRemove, "", nil))
}

// PayoutAsk is a payout as the page's form gives it.
type PayoutAsk struct {
	Destination, Amount, Currency string
	// Key names this request: the confirmation carries the key its
	// preview made, so a form sent twice asks once.
	Key string
}

// PayoutPreview is what a confirmed ask would hold, for the confirmation.
type PayoutPreview struct {
	Ask         PayoutAsk
	Destination payout.Destination
	Amount, Fee schema.Amount
	Total       schema.Amount
}

// Preview checks an ask and says what it would hold, changing nothing.
func (d *Payouts) Preview(ctx context.Context, actor access.Actor, in PayoutAsk) (PayoutPreview, error) {
	appid, err := d.ready(actor, access.PermPayoutsRequest)
	if err != nil {
		return PayoutPreview{}, err
	}
	amount, cur, err := parseAsk(in)
	if err != nil {
		return PayoutPreview{}, err
	}
	var dest payout.Destination
	all, err := d.store.Destinations(ctx, appid)
	if err != nil {
		return PayoutPreview{}, err
	}
	for _, x := range all {
		if x.ID == in.Destination && x.Removed.IsZero() {
			dest = x
		}
	}
	if dest.ID == "" {
		return PayoutPreview{}, notFound("no such payout destination")
	}
	a, err := d.merchants.Get(ctx, appid)
	if err != nil {
		return PayoutPreview{}, err
	}
	l := payout.LimitsOf(a.Terms, cur)
	if amount < l.Min {
		return PayoutPreview{}, platform.Errorf(platform.KindBelowMinimum, "the smallest payout is %s %s", l.Min, cur)
	}
	in.Currency, in.Key = cur, newAskKey()
	return PayoutPreview{Ask: in, Destination: dest, Amount: amount, Fee: l.Fee, Total: amount + l.Fee}, nil
}

// Request asks for the payout the confirmation names.
func (d *Payouts) Request(ctx context.Context, actor access.Actor, in PayoutAsk) (payout.Payout, error) {
	appid, err := d.ready(actor, access.PermPayoutsRequest)
	if err != nil {
		return payout.Payout{}, err
	}
	amount, cur, err := parseAsk(in)
	if err != nil {
		return payout.Payout{}, err
	}
	a, err := d.merchants.Get(ctx, appid)
	if err != nil {
		return payout.Payout{}, err
	}
	p, _, err := d.store.Request(ctx, payout.Ask{AppID: appid, Destination: in.Destination, Currency: cur, Amount: amount,
		By: "user:" + actor.ID, IdempotencyKey: in.Key, Limits: payout.LimitsOf(a.Terms, cur)},
		entry(d.now(), actor, payout.ActionRequest, "", nil))
	return p, err
}

func parseAsk(in PayoutAsk) (schema.Amount, string, error) {
	amount, err := schema.ParseAmount(strings.TrimSpace(in.Amount))
	if err != nil {
		return 0, "", invalid("amount: an amount such as 100.00")
	}
	cur := strings.ToUpper(strings.TrimSpace(in.Currency))
	if !schema.KnownCurrency(cur) {
		return 0, "", invalid("currency: a balance currency such as USD")
	}
	return amount, cur, nil
}

// newAskKey is a console request's idempotency key.
func newAskKey() string {
	var b [12]byte
	_, _ = crand.Read(b[:]) // never fails (crypto/rand)
	return "console-" + hex.EncodeToString(b[:])
}

func (d *Payouts) ready(actor access.Actor, p access.Permission) (string, error) {
	appid, err := may(actor, p)
	if err != nil {
		return "", err
	}
	if d.store == nil {
		return "", errNoPayouts
	}
	return appid, nil
}
