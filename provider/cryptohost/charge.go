package cryptohost

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/schema"
)

// Price is an amount as the provider writes it: a decimal string and a
// currency code.
type Price struct {
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

// Payment is one on-chain payment the provider saw for a charge.
type Payment struct {
	Status string `json:"status"`
	Value  struct {
		Local  Price `json:"local"`
		Crypto Price `json:"crypto"`
	} `json:"value"`
}

// TimelineEntry is one step of a charge's life.
type TimelineEntry struct {
	Status  string `json:"status"`
	Time    string `json:"time"`
	Context string `json:"context,omitempty"`
}

// Charge is the provider's charge object, as its API answers it and as a
// webhook event carries it; only what we use or the simulator shows.
type Charge struct {
	ID          string `json:"id"`
	Code        string `json:"code"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	HostedURL   string `json:"hosted_url"`
	CreatedAt   string `json:"created_at"`
	ExpiresAt   string `json:"expires_at"`
	PricingType string `json:"pricing_type"`
	Pricing     struct {
		Local Price `json:"local"`
	} `json:"pricing"`
	Metadata struct {
		OrderID string `json:"order_id"`
	} `json:"metadata"`
	RedirectURL string          `json:"redirect_url,omitempty"`
	CancelURL   string          `json:"cancel_url,omitempty"`
	Payments    []Payment       `json:"payments"`
	Timeline    []TimelineEntry `json:"timeline"`
}

// LastStatus is the charge's current timeline status, upper-cased.
func (c *Charge) LastStatus() (status, context string) {
	if len(c.Timeline) == 0 {
		return "", ""
	}
	e := c.Timeline[len(c.Timeline)-1]
	return strings.ToUpper(e.Status), strings.ToUpper(e.Context)
}

// localPrice is the charge's price in its local (fiat) currency, exactly.
func (c *Charge) localPrice() (provider.Money, error) {
	a, err := decimal.ParseMinor(c.Pricing.Local.Amount, decimal.Exact)
	if err != nil {
		return provider.Money{}, fmt.Errorf("pricing.local.amount: %w", err)
	}
	cur := strings.ToUpper(c.Pricing.Local.Currency)
	if !decimal.Currency(cur) {
		return provider.Money{}, fmt.Errorf("pricing.local.currency: %w", decimal.ErrCurrency)
	}
	return provider.Money{Amount: a, Currency: cur}, nil
}

// receipts is what a charge's payments that did not fail add up to: in the
// price's currency (n of them), and in the first other currency any of them
// is in (foreign, set when one is).
type receipts struct {
	sum     schema.Amount
	n       int
	foreign *provider.Money
}

// received adds up the local value of the payments that did not fail, in
// the price's currency cur and in the first other one, rounded down.
func (c *Charge) received(cur string) (receipts, error) {
	var r receipts
	for i, p := range c.Payments {
		if strings.EqualFold(p.Status, "failed") {
			continue
		}
		a, err := decimal.ParseMinor(p.Value.Local.Amount, decimal.Down)
		if err != nil {
			return receipts{}, fmt.Errorf("payments[%d].value.local.amount: %w", i, err)
		}
		other := strings.ToUpper(clip(p.Value.Local.Currency))
		switch {
		case other == cur:
			r.sum += a
			r.n++
		case r.foreign == nil:
			r.foreign = &provider.Money{Amount: a, Currency: other}
		case r.foreign.Currency == other:
			r.foreign.Amount += a
		}
		if r.sum > schema.MaxAmount || (r.foreign != nil && r.foreign.Amount > schema.MaxAmount) {
			return receipts{}, fmt.Errorf("payments: %w", decimal.ErrRange)
		}
	}
	return r, nil
}

// eventOutcome is what an event type says, before the payments are looked
// at (see the package comment).
func eventOutcome(kind string, c *Charge) provider.Outcome {
	switch strings.TrimPrefix(kind, "charge:") {
	case "confirmed", "resolved":
		return provider.OutcomePaid
	case "failed":
		if s, _ := c.LastStatus(); s == "EXPIRED" {
			return provider.OutcomeExpired
		}
		return provider.OutcomeFailed
	default: // created, pending, delayed, and what we do not know
		return provider.OutcomePending
	}
}

// timelineOutcome is what a charge's current status says, for Query.
func timelineOutcome(c *Charge) provider.Outcome {
	switch s, ctx := c.LastStatus(); s {
	case "COMPLETED", "CONFIRMED", "RESOLVED":
		return provider.OutcomePaid
	case "EXPIRED":
		return provider.OutcomeExpired
	case "FAILED":
		return provider.OutcomeFailed
	case "CANCELED", "CANCELLED":
		return provider.OutcomeCancelled
	case "UNRESOLVED":
		if ctx == "UNDERPAID" {
			return provider.OutcomePartial
		}
		return provider.OutcomePending
	default: // NEW, SIGNED, PENDING
		return provider.OutcomePending
	}
}

// judge completes what the provider said with what its payments show: a
// "paid" charge whose payments add up to less than the price is partial
// (never paid); more than the price is still paid in full, the excess noted;
// a charge whose payments are all in another currency than its price is not
// paid in its price, whatever the event says: Paid is then that money, so
// the command side refuses it as a currency mismatch (with some in the
// price's currency, only those count); a failed or expired
// charge that received money is partial, so operators see it. Paid is the
// price when paid, the money received when partial.
func judge(c *Charge, o provider.Outcome, fields map[string]string) (provider.Outcome, provider.Money, error) {
	if o == provider.OutcomePending || o == provider.OutcomeCancelled {
		return o, provider.Money{}, nil
	}
	p, err := c.localPrice()
	if err != nil {
		return 0, provider.Money{}, err
	}
	r, err := c.received(p.Currency)
	if err != nil {
		return 0, provider.Money{}, err
	}
	if r.n > 0 {
		fields["received_local"] = r.sum.String()
	}
	if r.foreign != nil {
		fields["received_other"] = r.foreign.Amount.String() + " " + r.foreign.Currency
	}
	got := provider.Money{Amount: r.sum, Currency: p.Currency}
	switch {
	case o == provider.OutcomePaid && (r.n > 0 && r.sum >= p.Amount || r.n == 0 && r.foreign == nil):
		if r.sum > p.Amount {
			fields["overpaid"] = (r.sum - p.Amount).String()
		}
		return o, p, nil
	case o == provider.OutcomePaid && r.n == 0:
		return o, *r.foreign, nil // all in another currency: a currency mismatch
	case o == provider.OutcomePaid || r.n > 0 && r.sum > 0:
		return provider.OutcomePartial, got, nil
	case r.foreign != nil:
		return provider.OutcomePartial, *r.foreign, nil
	}
	return o, provider.Money{}, nil
}

// chargeFields are the charge's fields kept for support: identifiers,
// price, status; never payer addresses or metadata beyond our order id.
func chargeFields(c *Charge) map[string]string {
	s, ctx := c.LastStatus()
	f := map[string]string{
		"charge_code":     c.Code,
		"charge_id":       c.ID,
		"order_id":        c.Metadata.OrderID,
		"local_amount":    c.Pricing.Local.Amount,
		"local_currency":  c.Pricing.Local.Currency,
		"timeline_status": s,
		"payments":        strconv.Itoa(len(c.Payments)),
	}
	if ctx != "" {
		f["timeline_context"] = ctx
	}
	for k, v := range f {
		if v == "" {
			delete(f, k)
		} else if len(v) > 128 {
			f[k] = v[:128]
		}
	}
	return f
}
