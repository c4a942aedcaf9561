package cryptohost

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/internal/decimal"
	"github.com/paygate/gateway/schema"
)

// price is an amount as the provider writes it: a decimal string and a
// currency code.
type price struct {
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

// payment is one on-chain payment the provider saw for a charge.
type payment struct {
	Status string `json:"status"`
	Value  struct {
		Local  price `json:"local"`
		Crypto price `json:"crypto"`
	} `json:"value"`
}

// timelineEntry is one step of a charge's life.
type timelineEntry struct {
	Status  string `json:"status"`
	Time    string `json:"time"`
	Context string `json:"context,omitempty"`
}

// charge is the provider's charge object, as its API answers it and as a
// webhook event carries it; only what we use or the simulator shows.
type charge struct {
	ID          string `json:"id"`
	Code        string `json:"code"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	HostedURL   string `json:"hosted_url"`
	CreatedAt   string `json:"created_at"`
	ExpiresAt   string `json:"expires_at"`
	PricingType string `json:"pricing_type"`
	Pricing     struct {
		Local price `json:"local"`
	} `json:"pricing"`
	Metadata struct {
		OrderID string `json:"order_id"`
	} `json:"metadata"`
	RedirectURL string          `json:"redirect_url,omitempty"`
	CancelURL   string          `json:"cancel_url,omitempty"`
	Payments    []payment       `json:"payments"`
	Timeline    []timelineEntry `json:"timeline"`
}

// lastStatus is the charge's current timeline status, upper-cased.
func (c *charge) lastStatus() (status, context string) {
	if len(c.Timeline) == 0 {
		return "", ""
	}
	e := c.Timeline[len(c.Timeline)-1]
	return strings.ToUpper(e.Status), strings.ToUpper(e.Context)
}

// localPrice is the charge's price in its local (fiat) currency, exactly.
func (c *charge) localPrice() (provider.Money, error) {
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

// received adds up the local value of the payments that did not fail, in
// the price's currency, rounded down. comparable is false when there are no
// such payments or some is in another currency: then the sum says nothing.
func (c *charge) received(cur string) (sum schema.Amount, comparable bool, err error) {
	n := 0
	for i, p := range c.Payments {
		if strings.EqualFold(p.Status, "failed") {
			continue
		}
		if !strings.EqualFold(p.Value.Local.Currency, cur) {
			return 0, false, nil
		}
		a, err := decimal.ParseMinor(p.Value.Local.Amount, decimal.Down)
		if err != nil {
			return 0, false, fmt.Errorf("payments[%d].value.local.amount: %w", i, err)
		}
		sum += a
		n++
		if sum > schema.MaxAmount {
			return 0, false, fmt.Errorf("payments: %w", decimal.ErrRange)
		}
	}
	return sum, n > 0, nil
}

// eventOutcome is what an event type says, before the payments are looked
// at (see the package comment).
func eventOutcome(kind string, c *charge) provider.Outcome {
	switch strings.TrimPrefix(kind, "charge:") {
	case "confirmed", "resolved":
		return provider.OutcomePaid
	case "failed":
		if s, _ := c.lastStatus(); s == "EXPIRED" {
			return provider.OutcomeExpired
		}
		return provider.OutcomeFailed
	default: // created, pending, delayed, and what we do not know
		return provider.OutcomePending
	}
}

// timelineOutcome is what a charge's current status says, for Query.
func timelineOutcome(c *charge) provider.Outcome {
	switch s, ctx := c.lastStatus(); s {
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
// a failed or expired charge that received money is partial, so operators
// see it. Paid is the price when paid, the money received when partial.
func judge(c *charge, o provider.Outcome, fields map[string]string) (provider.Outcome, provider.Money, error) {
	if o == provider.OutcomePending || o == provider.OutcomeCancelled {
		return o, provider.Money{}, nil
	}
	p, err := c.localPrice()
	if err != nil {
		return 0, provider.Money{}, err
	}
	got, comparable, err := c.received(p.Currency)
	if err != nil {
		return 0, provider.Money{}, err
	}
	if comparable {
		fields["received_local"] = got.String()
	}
	switch {
	case o == provider.OutcomePaid && comparable && got < p.Amount:
		return provider.OutcomePartial, provider.Money{Amount: got, Currency: p.Currency}, nil
	case o == provider.OutcomePaid:
		if comparable && got > p.Amount {
			fields["overpaid"] = (got - p.Amount).String()
		}
		return o, p, nil
	case comparable && got > 0:
		return provider.OutcomePartial, provider.Money{Amount: got, Currency: p.Currency}, nil
	}
	return o, provider.Money{}, nil
}

// chargeFields are the charge's fields kept for support: identifiers,
// price, status; never payer addresses or metadata beyond our order id.
func chargeFields(c *charge) map[string]string {
	s, ctx := c.lastStatus()
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
