package usdtsim

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"

	"github.com/paygate/gateway/payout/rails"
)

// The sandbox's payout endpoints and their bodies, the same on every
// simulated chain, are the payout rail's (payout/rails): the sender's
// transfer and its lookup by the payout's reference. A real chain knows no
// references; the hot wallet or the exchange that sends does, and this
// stands in for it.
const (
	PayoutTransferPath = rails.TransferPath
	PayoutLookupPath   = rails.LookupPath
)

// PayoutAsk is a payout sender's transfer (rails.Ask).
type PayoutAsk = rails.Ask

// PayoutAnswer is what the endpoints answer (rails.Answer).
type PayoutAnswer = rails.Answer

// payoutRecord is every transaction made under one reference, first first.
type payoutRecord struct {
	Hashes []string `json:"hashes"`
}

var payoutRef = regexp.MustCompile(`^[0-9A-Za-z]{1,100}$`)

// Transferer makes a successful transfer of amount to to on the chain and
// answers its hash; an error of kind BadTransfer is the chain refusing it.
type Transferer func(ctx context.Context, to, amount string) (string, error)

// BadTransfer is a transfer the chain refuses (a bad address or amount).
type BadTransfer struct{ Reason string }

func (e *BadTransfer) Error() string { return e.Reason }

// PayoutTransfer is the handler of PayoutTransferPath over make.
func (n Node) PayoutTransfer(make Transferer) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var ask PayoutAsk
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<14)).Decode(&ask); err != nil || !payoutRef.MatchString(ask.Reference) {
			WriteJSON(w, http.StatusBadRequest, PayoutAnswer{Error: "a JSON body with reference, to and amount"})
			return
		}
		if n.Store.Misbehave(w, r, "payout") {
			return
		}
		hash, err := make(r.Context(), ask.To, ask.Amount)
		if bad, ok := err.(*BadTransfer); ok {
			WriteJSON(w, http.StatusUnprocessableEntity, PayoutAnswer{Error: bad.Reason})
			return
		}
		if err != nil {
			http.Error(w, "simulator state unavailable", http.StatusServiceUnavailable)
			return
		}
		rec, err := n.recordPayout(r.Context(), ask.Reference, hash)
		if err != nil {
			http.Error(w, "simulator state unavailable", http.StatusServiceUnavailable)
			return
		}
		WriteJSON(w, http.StatusOK, PayoutAnswer{Found: true, Hash: rec.Hashes[0], Transfers: len(rec.Hashes)})
	}
}

// PayoutLookup is the handler of PayoutLookupPath.
func (n Node) PayoutLookup(w http.ResponseWriter, r *http.Request) {
	var ask PayoutAsk
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<14)).Decode(&ask); err != nil || !payoutRef.MatchString(ask.Reference) {
		WriteJSON(w, http.StatusBadRequest, PayoutAnswer{Error: "a JSON body with the reference"})
		return
	}
	if n.Store.Misbehave(w, r, "payout") {
		return
	}
	var rec payoutRecord
	found, err := n.Store.Get(r.Context(), "payout", ask.Reference, &rec)
	if err != nil {
		http.Error(w, "simulator state unavailable", http.StatusServiceUnavailable)
		return
	}
	if !found || len(rec.Hashes) == 0 {
		WriteJSON(w, http.StatusOK, PayoutAnswer{})
		return
	}
	WriteJSON(w, http.StatusOK, PayoutAnswer{Found: true, Hash: rec.Hashes[0], Transfers: len(rec.Hashes)})
}

// recordPayout adds hash to the reference's transfers. Two senders racing on
// one reference could lose one of the two hashes here; the payout store's
// lease is what keeps a second sender away, and this record is its witness.
func (n Node) recordPayout(ctx context.Context, ref, hash string) (payoutRecord, error) {
	var rec payoutRecord
	if _, err := n.Store.Get(ctx, "payout", ref, &rec); err != nil {
		return rec, fmt.Errorf("%s simulator: %w", n.name, err)
	}
	rec.Hashes = append(rec.Hashes, hash)
	if err := n.Store.Put(ctx, "payout", ref, rec); err != nil {
		return rec, fmt.Errorf("%s simulator: %w", n.name, err)
	}
	return rec, nil
}
