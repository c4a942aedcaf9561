package operator

import (
	"context"
	"errors"
	"strings"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// PayoutTermsInput is one currency's payout terms as an operator types
// them: decimal amounts in the currency's major unit ("" = 0).
type PayoutTermsInput struct {
	AppID, Currency       string
	Min, Fee, AutoApprove string
}

// SetPayoutTerms replaces appid's payout terms in one currency (all zero
// removes them), the rest of its terms kept; like every change of terms it
// is audited and noted for maker-checker.
func (m *Money) SetPayoutTerms(ctx context.Context, actor access.Actor, in PayoutTermsInput) (*merchant.Account, error) {
	if err := allow(actor, access.PermMerchantsWrite); err != nil {
		return nil, err
	}
	if !schema.KnownCurrency(in.Currency) {
		return nil, invalid("currency: a balance currency, e.g. USD")
	}
	var p merchant.PayoutTerms
	for _, f := range []struct {
		name, lit string
		to        *schema.Amount
	}{{"minimum", in.Min, &p.Min}, {"fee", in.Fee, &p.Fee}, {"auto-approve threshold", in.AutoApprove, &p.AutoApproveBelow}} {
		if f.lit == "" || strings.Trim(f.lit, "0.") == "" && f.lit[0] == '0' {
			continue // "", "0", "0.00": none
		}
		a, err := schema.ParseAmount(f.lit)
		if err != nil {
			return nil, invalid("payout " + f.name + ": an amount such as 10.00")
		}
		*f.to = a
	}
	cur, err := m.Terms(ctx, actor, in.AppID)
	if err != nil {
		return nil, err
	}
	return m.SetTerms(ctx, actor, in.AppID, cur.WithPayouts(in.Currency, p))
}

// notePayoutChange records actor as having changed appid's payout settings.
// Without a ChangeNoter no terms change: an unnoted change would let its
// maker approve the payouts it made possible.
func (m *Money) notePayoutChange(ctx context.Context, actor access.Actor, appid string) error {
	if m.payouts == nil {
		return &platform.Error{Kind: platform.KindUnavailable, Msg: "payout settings cannot be changed here",
			Err: errors.New("operator money: no payout store to note changes in")}
	}
	return m.payouts.NoteChange(ctx, appid, ChangerKey(actor))
}
