package exchange

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"time"

	family "github.com/paygate/gateway/usdt/exchange"

	"github.com/paygate/gateway/usdt"
	"github.com/paygate/gateway/web/sandbox/usdt/usdtsim"
)

// WithdrawFailureID is the Fail id that makes both withdrawal endpoints
// misbehave (the apply and the history).
const WithdrawFailureID = "withdraw"

// Withdrawal is the simulator's record of one withdrawOrderId: the row the
// history answers, when it was applied for, and how many applies came
// under the id, the refused second ones included: the sandbox's witness
// that a payout was asked for once.
type Withdrawal struct {
	Row     family.WithdrawRow `json:"row"`
	Applied int64              `json:"applied"` // ms
	Applies int                `json:"applies"`
	TxID    string             `json:"txid"` // shown once the withdrawal completes
}

// withdrawOrderID is the client id's form: letters and digits.
var withdrawOrderID = regexp.MustCompile(`^[0-9A-Za-z]{1,100}$`)

// apply is POST WithdrawPath: a new withdrawOrderId is accepted (status
// processing, its transaction made up at once and shown when it
// completes); a second apply under one is refused and never a second
// transfer; a bad address or amount is refused.
func (s *Sim) apply(w http.ResponseWriter, r *http.Request) {
	q, ok := s.authorised(w, r)
	if !ok || s.store.Misbehave(w, r, WithdrawFailureID) {
		return
	}
	id, network, address, amount := q.Get("withdrawOrderId"), q.Get("network"), q.Get("address"), q.Get("amount")
	ours := usdt.NetworkOfExchange(network)
	switch {
	case q.Get("coin") != "USDT":
		refuse(w, http.StatusBadRequest, -4003, "The simulator withdraws USDT only.")
		return
	case !withdrawOrderID.MatchString(id):
		refuse(w, http.StatusBadRequest, -1102, "Mandatory parameter 'withdrawOrderId' was not sent or malformed.")
		return
	case ours == "" || !usdt.ValidAddress(ours, address):
		refuse(w, http.StatusBadRequest, -4005, "The address is not valid on the network.")
		return
	}
	if units, err := usdt.Units(amount, 8); err != nil || units.Sign() <= 0 {
		refuse(w, http.StatusBadRequest, -4006, "The amount is not a positive decimal.")
		return
	}
	rec, err := s.withdraw(r.Context(), id, network, address, amount)
	if err != nil {
		http.Error(w, "simulator state unavailable", http.StatusServiceUnavailable)
		return
	}
	if rec.Applies > 1 {
		refuse(w, http.StatusBadRequest, family.CodeDuplicateWithdrawOrderID, "The withdrawOrderId was used before.")
		return
	}
	usdtsim.WriteJSON(w, http.StatusOK, map[string]string{"id": rec.Row.ID})
}

// withdraw records an apply under id: a new withdrawal, or one more apply
// of the one made. Two applies racing on one id could both read none; the
// payout sender's lease is what keeps a second one away, and Applies is
// its witness.
func (s *Sim) withdraw(ctx context.Context, id, network, address, amount string) (Withdrawal, error) {
	var rec Withdrawal
	found, err := s.store.Get(ctx, "withdraw", id, &rec)
	if err != nil {
		return rec, fmt.Errorf("exchange simulator: %w", err)
	}
	if !found {
		if rec, err = s.newWithdrawal(id, network, address, amount); err != nil {
			return rec, err
		}
	}
	rec.Applies++
	if err := s.store.Put(ctx, "withdraw", id, rec); err != nil {
		return rec, fmt.Errorf("exchange simulator: %w", err)
	}
	return rec, nil
}

func (s *Sim) newWithdrawal(id, network, address, amount string) (Withdrawal, error) {
	wid, err := usdtsim.RandomHex(16)
	if err != nil {
		return Withdrawal{}, fmt.Errorf("exchange simulator: %w", err)
	}
	tx, err := usdtsim.RandomHex(32)
	if err != nil {
		return Withdrawal{}, fmt.Errorf("exchange simulator: %w", err)
	}
	if network != "TRX" {
		tx = "0x" + tx // an EVM chain's hash
	}
	now := s.cfg.Now().UTC()
	return Withdrawal{Applied: now.UnixMilli(), TxID: tx, Row: family.WithdrawRow{ID: wid, Amount: amount, TransactionFee: "0",
		Coin: "USDT", Status: family.WithdrawProcessing, Address: address, ApplyTime: now.Format(family.ApplyTimeLayout),
		Network: network, WithdrawOrderID: id}}, nil
}

// history is GET WithdrawHistoryPath for one withdrawOrderId, as the
// exchange answers it: a range of at most WithdrawWindow, the last one
// when none is given.
func (s *Sim) history(w http.ResponseWriter, r *http.Request) {
	q, ok := s.authorised(w, r)
	if !ok || s.store.Misbehave(w, r, WithdrawFailureID) {
		return
	}
	id := q.Get("withdrawOrderId")
	if id == "" {
		// The simulator answers only what the rail asks: one id.
		usdtsim.WriteJSON(w, http.StatusOK, []family.WithdrawRow{})
		return
	}
	from, to, ok := s.historyRange(q.Get("startTime"), q.Get("endTime"))
	if !ok {
		refuse(w, http.StatusBadRequest, -1128, "With withdrawOrderId, startTime and endTime must be less than 7 days apart.")
		return
	}
	rec, found, err := s.Withdrawal(r.Context(), id)
	if err != nil {
		http.Error(w, "simulator state unavailable", http.StatusServiceUnavailable)
		return
	}
	rows := []family.WithdrawRow{}
	if found && rec.Applied >= from && rec.Applied <= to {
		rows = append(rows, rec.Row)
	}
	usdtsim.WriteJSON(w, http.StatusOK, rows)
}

// historyRange is the asked range in ms, or the last WithdrawWindow.
func (s *Sim) historyRange(start, end string) (from, to int64, ok bool) {
	now := s.cfg.Now().UnixMilli()
	from, to = now-family.WithdrawWindow.Milliseconds(), now
	var err1, err2 error
	if start != "" {
		from, err1 = strconv.ParseInt(start, 10, 64)
	}
	if end != "" {
		to, err2 = strconv.ParseInt(end, 10, 64)
	}
	return from, to, err1 == nil && err2 == nil && to >= from && to-from <= family.WithdrawWindow.Milliseconds()
}

// Withdrawal is the record of id as the history shows it now: a processing
// withdrawal completes, with its transaction, CompleteAfter its apply.
func (s *Sim) Withdrawal(ctx context.Context, id string) (Withdrawal, bool, error) {
	var rec Withdrawal
	found, err := s.store.Get(ctx, "withdraw", id, &rec)
	if err != nil || !found {
		return rec, found, err
	}
	done := time.UnixMilli(rec.Applied).Add(s.cfg.CompleteAfter)
	if rec.Row.Status == family.WithdrawProcessing && !s.cfg.Now().Before(done) {
		rec.Row.Status, rec.Row.TxID = family.WithdrawCompleted, rec.TxID
	}
	return rec, true, nil
}

// EndWithdrawal ends the withdrawal of id as the exchange may: rejected,
// failed or cancelled with info, which a test orders.
func (s *Sim) EndWithdrawal(ctx context.Context, id string, status int, info string) error {
	var rec Withdrawal
	found, err := s.store.Get(ctx, "withdraw", id, &rec)
	if err != nil {
		return fmt.Errorf("exchange simulator: %w", err)
	}
	if !found {
		return fmt.Errorf("exchange simulator: no withdrawal %s", id)
	}
	rec.Row.Status, rec.Row.Info = status, info
	if err := s.store.Put(ctx, "withdraw", id, rec); err != nil {
		return fmt.Errorf("exchange simulator: %w", err)
	}
	return nil
}
