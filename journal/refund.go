package journal

import (
	"math/big"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// RefundTx debits the merchant for refund r of order o, whose money came
// from source: available first, then pending; the provider account (or the
// payer, through Transit) gets it back, in the charged currency through
// platform:fx when the order was converted. The fee stays the platform's
// unless t returns it, in proportion. A merchant whose balance does not
// cover it is refused unless t allows a negative balance.
func RefundTx(o *schema.Order, r *schema.Refund, t merchant.Terms, source string) (Tx, error) {
	p, err := Price(o)
	if err != nil {
		return Tx{}, err
	}
	feeBack := schema.Amount(0)
	if t.RefundReturnsFee && p.Gross > 0 {
		feeBack = part(p.Fee, r.Amount, p.Gross)
	}
	tx := Tx{Key: KindRefund + ":" + r.ID, Kind: KindRefund, AppID: o.AppID, Ref: r.ID, At: r.CreatedAt(),
		AllowNegative: t.AllowNegative}
	for _, l := range refundLines(o, r.Amount, feeBack, source) {
		if l.Amount != 0 {
			tx.Postings = append(tx.Postings, l)
		}
	}
	return tx, nil
}

// RefundReversalTx gives back what RefundTx took when the refund failed
// after it was posted: to available, and only if it was posted.
func RefundReversalTx(o *schema.Order, r *schema.Refund, t merchant.Terms, source string) (Tx, error) {
	tx, err := RefundTx(o, r, t, source)
	if err != nil {
		return Tx{}, err
	}
	out := Tx{Key: KindRefundReversal + ":" + r.ID, Kind: KindRefundReversal, AppID: o.AppID, Ref: r.ID,
		Requires: tx.Key, AllowNegative: true}
	for _, l := range tx.Postings {
		if l.Account == Spend(o.AppID) {
			l.Account = Merchant(o.AppID, Available)
		}
		l.Amount = -l.Amount
		out.Postings = append(out.Postings, l)
	}
	return out, nil
}

func refundLines(o *schema.Order, amt, feeBack schema.Amount, source string) []Posting {
	charged, ccur := o.Charge()
	lines := []Posting{
		{Account: Spend(o.AppID), Currency: o.Currency, Amount: -(amt - feeBack)},
		{Account: Fees, Currency: o.Currency, Amount: -feeBack},
	}
	if ccur == o.Currency {
		return append(lines, Posting{Account: source, Currency: o.Currency, Amount: amt})
	}
	back := part(charged, amt, o.Amount)
	return append(lines,
		Posting{Account: FX, Currency: o.Currency, Amount: amt},
		Posting{Account: FX, Currency: ccur, Amount: -back},
		Posting{Account: source, Currency: ccur, Amount: back})
}

// part is whole·num/den rounded down: a refund's share of a fee or of a
// converted charge, so shares in parts never add up to more than whole.
func part(whole, num, den schema.Amount) schema.Amount {
	n := new(big.Int).Mul(big.NewInt(int64(whole)), big.NewInt(int64(num)))
	return schema.Amount(n.Quo(n, big.NewInt(int64(den))).Int64())
}
