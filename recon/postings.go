package recon

import (
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/schema"
)

// Tx is what a matched line posts, once under its key: the provider paid
// the platform the line's net, so the channel's receivable is cleared by it
// against platform:settled; a fee other than the cost posted at payment
// moves the difference between the channel's cost and its receivable, so
// the receivable ends at zero and the cost says what the provider kept.
func Tx(channel string, m Matched) (journal.Tx, bool) {
	l, p := m.Line, m.Payment
	tx := journal.Tx{Key: journal.KindRecon + ":" + channel + ":" + p.OrderID, Kind: journal.KindRecon, AppID: p.AppID,
		Ref: p.OrderID, At: l.At,
		// Only what the payment posted can be cleared: a line for a payment
		// the ledger never took would drive the receivable positive.
		Requires: journal.KindPayment + ":" + p.OrderID}
	add := func(acct string, n schema.Amount) {
		if n != 0 {
			tx.Postings = append(tx.Postings, journal.Posting{Account: acct, Currency: l.Currency, Amount: n})
		}
	}
	net, diff := l.Amount-l.Fee, l.Fee-p.Fee
	add(journal.Receivable(channel), net+diff)
	add(journal.Settled, -net)
	add(journal.Cost(channel), -diff)
	return tx, len(tx.Postings) > 0
}
