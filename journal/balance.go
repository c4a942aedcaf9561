package journal

import (
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// KindBalanceRefund is the payer's side of a balance payment's refund: the
// money comes back from transit to the payer's available balance.
const KindBalanceRefund = "balance_refund"

// line is one posting, for the builders below.
func line(acct, cur string, n schema.Amount) Posting {
	return Posting{Account: acct, Currency: cur, Amount: n}
}

// TopUpTx credits appid's available balance from the top-up account: money
// an operator says the merchant paid in. key is "topup:<id>"; a retry under
// the same key moves nothing again.
func TopUpTx(key, appid, cur string, amount schema.Amount, at time.Time) Tx {
	return Tx{Key: key, Kind: KindTopUp, AppID: appid, At: at, Postings: []Posting{
		line(TopUp, cur, -amount), line(Merchant(appid, Available), cur, amount)}}
}

// OpeningTx carries a balance kept before the journal into it, once for
// ever: from the opening account to available.
func OpeningTx(appid, cur string, amount schema.Amount, at time.Time) Tx {
	return Tx{Key: KindOpening + ":" + appid + ":" + cur, Kind: KindOpening, AppID: appid, At: at, Permanent: true,
		AllowNegative: amount < 0, Postings: []Posting{
			line(Opening, cur, -amount), line(Merchant(appid, Available), cur, amount)}}
}

// BalanceDebitTx takes a balance payment's amount from the payer's
// available balance into transit, once per attempt of the order. A refusal
// is recorded, so a released attempt can never debit later.
func BalanceDebitTx(payer, orderID, attempt, cur string, amount schema.Amount, at time.Time) Tx {
	return Tx{Key: KindBalanceDebit + ":" + orderID + ":" + attempt, Kind: KindBalanceDebit, AppID: payer, Ref: orderID,
		At: at, RecordRefusal: true, Postings: []Posting{
			line(Merchant(payer, Available), cur, -amount), line(Transit, cur, amount)}}
}

// BalanceRevertTx gives an attempt's debit back (its order was paid some
// other way), only if the debit was posted.
func BalanceRevertTx(payer, orderID, attempt, cur string, amount schema.Amount, at time.Time) Tx {
	return Tx{Key: KindBalanceRevert + ":" + orderID + ":" + attempt, Kind: KindBalanceRevert, AppID: payer, Ref: orderID,
		At: at, Requires: KindBalanceDebit + ":" + orderID + ":" + attempt, Postings: []Posting{
			line(Transit, cur, -amount), line(Merchant(payer, Available), cur, amount)}}
}

// BalanceRefundTx credits the payer of a refunded balance payment with the
// refund's amount from source: Transit, where the merchant's RefundTx put
// it.
func BalanceRefundTx(payer, refundID, cur string, amount schema.Amount, source string, at time.Time) Tx {
	return Tx{Key: KindBalanceRefund + ":" + refundID, Kind: KindBalanceRefund, AppID: payer, Ref: refundID, At: at,
		Postings: []Posting{line(source, cur, -amount), line(Merchant(payer, Available), cur, amount)}}
}

// BalanceOrderTx pays merchant's own order o from its available balance:
// the order's amount, of which the fee the order records (none unless an
// operator set one) goes to platform:fees and the rest to platform:spent,
// as a payment's fee comes out of its gross. Posted by the order's create script (Library), in the
// step that stores the order paid.
func BalanceOrderTx(o *schema.Order) (Tx, error) {
	p, err := Price(o)
	if err != nil {
		return Tx{}, err
	}
	tx := Tx{Key: KindBalanceOrder + ":" + o.ID, Kind: KindBalanceOrder, AppID: o.AppID, Ref: o.ID, At: o.CreatedAt,
		Postings: []Posting{line(Merchant(o.AppID, Available), o.Currency, -p.Gross)}}
	if p.Net > 0 {
		tx.Postings = append(tx.Postings, line(Spent, o.Currency, p.Net))
	}
	if p.Fee > 0 {
		tx.Postings = append(tx.Postings, line(Fees, o.Currency, p.Fee))
	}
	return tx, nil
}

// OwnBalanceRefundTx gives refund r of o, an order its merchant paid from
// its own balance (BalanceOrderTx), back to that balance from
// platform:spent. The fee the order paid stays the platform's unless t
// returns it, in proportion, as a provider refund's does.
func OwnBalanceRefundTx(o *schema.Order, r *schema.Refund, t merchant.Terms, at time.Time) (Tx, error) {
	p, err := Price(o)
	if err != nil {
		return Tx{}, err
	}
	share := schema.Amount(0)
	if p.Gross > 0 {
		share = part(p.Fee, r.Amount, p.Gross)
	}
	back := r.Amount - share
	tx := Tx{Key: KindBalanceRefund + ":" + r.ID, Kind: KindBalanceRefund, AppID: o.AppID, Ref: r.ID, At: at}
	add := func(acct string, n schema.Amount) {
		if n != 0 {
			tx.Postings = append(tx.Postings, line(acct, o.Currency, n))
		}
	}
	add(Spent, -back)
	if t.RefundReturnsFee {
		add(Fees, -share)
		back += share
	}
	add(Merchant(o.AppID, Available), back)
	return tx, nil
}
