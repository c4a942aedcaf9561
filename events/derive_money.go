package events

import (
	"fmt"
	"strings"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/schema"
)

// FromPayouts is what an entry of the payouts' stream
// (schema.PayoutEventsKey) means to its merchant: a payout's move
// (payout.requested, approved, rejected, paid, failed; its sending is no
// event) or a destination added or removed. Each state is reached once,
// and a destination is added and removed once, so those make the source.
func FromPayouts(values map[string]any) ([]Derived, error) {
	en, err := payout.DecodeEntry(values)
	if err != nil {
		return nil, err
	}
	if en.Type == payout.EntryTypeDestination {
		d := en.Destination
		change := "added"
		if !d.Removed.IsZero() {
			change = "removed"
		}
		e, err := New(DestinationEdit, d.ID+":"+change, en.At, payout.ViewDestination(d))
		if err != nil {
			return nil, err
		}
		return []Derived{{AppID: d.AppID, Object: DestinationObject(d.ID), Event: e}}, nil
	}
	t := Type(en.Type)
	if !payoutTypes[t] {
		return nil, nil
	}
	p := en.Payout
	e, err := New(t, p.ID+":"+strings.TrimPrefix(en.Type, "payout."), en.At, payout.ViewOf(p))
	if err != nil {
		return nil, err
	}
	return []Derived{{AppID: p.AppID, Object: PayoutObject(p.ID), Event: e}}, nil
}

var payoutTypes = map[Type]bool{PayoutRequested: true, PayoutApproved: true, PayoutRejected: true, PayoutPaid: true, PayoutFailed: true}

// Settlement is a journal transaction that moved a merchant's money to
// available on its settlement schedule: a payment's settlement (pending to
// available, less a reserve) or a reserve's release.
type Settlement struct {
	Key       string // the journal transaction's key: the source of its event
	Kind      string // journal.KindSettlement or KindReserveRelease
	AppID     string
	Ref       string // the order paid
	Currency  string
	Available schema.Amount // what became available
	Reserved  schema.Amount // what went to the reserve
	Entry     journal.Entry
}

// SettlementOf reads a journal entry as a settlement; ok is false for every
// other transaction (payments, refunds, payouts, top-ups).
func SettlementOf(e journal.Entry) (Settlement, bool) {
	if e.Kind != journal.KindSettlement && e.Kind != journal.KindReserveRelease {
		return Settlement{}, false
	}
	s := Settlement{Key: e.Key, Kind: e.Kind, AppID: e.AppID, Ref: e.Ref, Entry: e}
	for _, p := range e.Postings {
		switch p.Account {
		case journal.Merchant(e.AppID, journal.Available):
			s.Available, s.Currency = s.Available+p.Amount, p.Currency
		case journal.Merchant(e.AppID, journal.Reserve):
			s.Reserved, s.Currency = s.Reserved+p.Amount, p.Currency
		}
	}
	return s, s.Currency != ""
}

// SettledData is balance.settled's data: the merchant's balance in the
// currency as GET /api/balance shows it, after the settlement, and the
// settlement itself.
type SettledData struct {
	journal.BalanceView
	Settlement SettlementView `json:"settlement"`
}

// SettlementView is what one settlement moved.
type SettlementView struct {
	Transaction string `json:"transaction"` // as GET /api/balance?action=transactions names it
	Type        string `json:"type"`        // settlement or reserve_release
	PaymentID   string `json:"paymentId"`
	Amount      string `json:"amount"`             // made available
	Reserved    string `json:"reserved,omitempty"` // held in the reserve
}

// FromSettlement is balance.settled for s, with the merchant's balance in
// its currency read after it (bal). The transaction's key is the source:
// the journal posts it once, so it is one event however often it is read.
func FromSettlement(s Settlement, bal journal.Balance) (Derived, error) {
	if bal.Currency != s.Currency {
		return Derived{}, fmt.Errorf("balance in %s for a settlement in %s", bal.Currency, s.Currency)
	}
	v := SettlementView{Transaction: s.Key, Type: s.Kind, PaymentID: s.Ref, Amount: s.Available.String()}
	if s.Reserved != 0 {
		v.Reserved = s.Reserved.String()
	}
	e, err := New(BalanceSettled, s.Key, s.Entry.At, SettledData{BalanceView: bal.View(), Settlement: v})
	if err != nil {
		return Derived{}, err
	}
	return Derived{AppID: s.AppID, Object: BalanceObject(s.Currency), Event: e}, nil
}
