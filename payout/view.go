package payout

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// View is one payout as the merchant API answers it (and its payout.*
// events carry it): amounts as decimals of the currency, times in RFC 3339
// UTC, empty fields left out.
type View struct {
	ID          string `json:"id"`
	Destination string `json:"destination"`
	Kind        string `json:"kind"`
	Currency    string `json:"currency"`
	Amount      string `json:"amount"`
	Fee         string `json:"fee"`
	State       string `json:"state"`
	Reason      string `json:"reason,omitempty"`
	TxHash      string `json:"txHash,omitempty"`
	BankRef     string `json:"bankRef,omitempty"`
	Reference   string `json:"reference"`
	Created     string `json:"created"`
	Decided     string `json:"decided,omitempty"`
	Done        string `json:"done,omitempty"`
}

// ViewOf is p as the API shows it.
func ViewOf(p Payout) View {
	return View{ID: p.ID, Destination: p.Destination, Kind: string(p.Kind), Currency: p.Currency,
		Amount: p.Amount.String(), Fee: p.Fee.String(), State: string(p.State), Reason: p.Reason, TxHash: p.TxHash,
		BankRef: p.BankRef, Reference: p.Reference(), Created: wire(p.Created), Decided: wire(p.Decided), Done: wire(p.Done)}
}

// DestinationView is a payout destination as a merchant's event shows it:
// what it is and where, an account number cut to its last four characters
// (Where), never the whole.
type DestinationView struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Label   string `json:"label,omitempty"`
	Where   string `json:"where"`
	Created string `json:"created"`
	Usable  string `json:"usable"`
	Removed string `json:"removed,omitempty"`
}

// ViewDestination is d as a merchant's event shows it.
func ViewDestination(d Destination) DestinationView {
	return DestinationView{ID: d.ID, Kind: string(d.Kind), Label: d.Label, Where: d.Where(), Created: wire(d.Created),
		Usable: wire(d.Usable), Removed: wire(d.Removed)}
}

func wire(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// Fields of an entry of the payouts' stream (schema.PayoutEventsKey), as
// the scripts write them: the type (payout.<state> or
// payout_destination.changed), the time (ms), the payout's or the
// destination's id; then the payout's hash fields, or the destination's
// JSON.
const (
	EntryType        = "type"
	EntryAt          = "at"
	EntryID          = "id"
	EntryDestination = "destination"
)

// EntryTypeDestination is the type of a destination's entry.
const EntryTypeDestination = "payout_destination.changed"

// Entry is one entry of the payouts' stream: a payout's move or a
// destination's change.
type Entry struct {
	Type        string
	At          time.Time   // when the payout reached its state, the destination changed
	Payout      Payout      // payout.* entries
	Destination Destination // payout_destination.changed entries
}

// DecodeEntry reads an entry of the payouts' stream.
func DecodeEntry(values map[string]any) (Entry, error) {
	str := func(k string) string { s, _ := values[k].(string); return s }
	e := Entry{Type: str(EntryType)}
	ms, err := strconv.ParseInt(str(EntryAt), 10, 64)
	if err != nil {
		return Entry{}, fmt.Errorf("payouts' entry %q: time %q", e.Type, str(EntryAt))
	}
	e.At = time.UnixMilli(ms).UTC()
	id := str(EntryID)
	if id == "" {
		return Entry{}, errors.New("payouts' entry names no id")
	}
	if e.Type == EntryTypeDestination {
		e.Destination, err = decodeDestination(str(EntryDestination))
		return e, err
	}
	h := make(map[string]string, len(values))
	for k, v := range values {
		h[k], _ = v.(string)
	}
	e.Payout = payoutFrom(id, h)
	if e.Payout.AppID == "" {
		return Entry{}, fmt.Errorf("payouts' entry of %s names no merchant", id)
	}
	e.At = e.Payout.stateTime(e.At)
	return e, nil
}

// stateTime is when p reached its state. A payout's entry names "at" twice
// (the move's time, then the payout's own field: its creation) and a
// reader keeps the last, so the time is taken from the payout: created,
// decided or done; fallback for a state without a time of its own
// (sending).
func (p Payout) stateTime(fallback time.Time) time.Time {
	var t time.Time
	switch p.State {
	case Requested:
		t = p.Created
	case Approved:
		t = p.Decided
	case Rejected, Paid, Failed:
		t = p.Done
	}
	if t.IsZero() {
		return fallback
	}
	return t
}
