package merchant

import (
	"fmt"
	"sort"

	"github.com/paygate/gateway/schema"
)

// PayoutTerms are a merchant's payout terms in one currency, set by
// operators: the smallest payout, the platform's fee per payout, and the
// amount below which a payout is approved without an operator's review.
type PayoutTerms struct {
	Min schema.Amount `json:"min,omitempty"`
	Fee schema.Amount `json:"fee,omitempty"`
	// AutoApproveBelow approves a payout below it at once (0 = never).
	AutoApproveBelow schema.Amount `json:"autoApproveBelow,omitempty"`
}

// Bounds of payout terms: a fee or a minimum beyond them is a typing
// mistake, never a price (a million in the currency's major unit).
const (
	maxPayoutCurrencies = 20
	maxPayoutAmount     = schema.Amount(100_000_000)
)

// Zero says whether p are no terms at all: the currency's entry is
// removed rather than kept empty.
func (p PayoutTerms) Zero() bool { return p == PayoutTerms{} }

// Validate checks one currency's payout terms.
func (p PayoutTerms) Validate(cur string) error {
	for _, f := range []struct {
		name string
		v    schema.Amount
	}{{"minimum", p.Min}, {"fee", p.Fee}, {"auto-approve threshold", p.AutoApproveBelow}} {
		if f.v < 0 || f.v > maxPayoutAmount {
			return fmt.Errorf("payout %s in %s: 0 to %s", f.name, cur, maxPayoutAmount)
		}
	}
	return nil
}

// PayoutsFor are the terms of payouts of a cur balance: none set is no
// minimum, no fee and every payout reviewed.
func (t Terms) PayoutsFor(cur string) PayoutTerms { return t.Payouts[cur] }

// PayoutCurrencies are the currencies with payout terms, sorted.
func (t Terms) PayoutCurrencies() []string {
	out := make([]string, 0, len(t.Payouts))
	for c := range t.Payouts {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// WithPayouts is t with cur's payout terms replaced by p (removed when p
// is zero); t itself is unchanged.
func (t Terms) WithPayouts(cur string, p PayoutTerms) Terms {
	next := make(map[string]PayoutTerms, len(t.Payouts)+1)
	for c, v := range t.Payouts {
		next[c] = v
	}
	if p.Zero() {
		delete(next, cur)
	} else {
		next[cur] = p
	}
	if len(next) == 0 {
		next = nil
	}
	t.Payouts = next
	return t
}

func (t Terms) validatePayouts() error {
	if len(t.Payouts) > maxPayoutCurrencies {
		return fmt.Errorf("payout terms in %d currencies: at most %d", len(t.Payouts), maxPayoutCurrencies)
	}
	for _, cur := range t.PayoutCurrencies() {
		if !schema.KnownCurrency(cur) {
			return fmt.Errorf("payout terms: %q is not a currency we keep balances in", cur)
		}
		if err := t.Payouts[cur].Validate(cur); err != nil {
			return err
		}
	}
	return nil
}
