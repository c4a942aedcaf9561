package usdt

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"
)

// Mode is how a network's transfers are reviewed (SPEC.md's usdt_direct).
type Mode string

const (
	ModeChain       Mode = "chain"        // the chain itself: transfer, amount, recipient, confirmations
	ModeExchange    Mode = "exchange"     // the exchange's deposit history
	ModeDual        Mode = "dual"         // both, and they must agree
	ModeExchangePay Mode = "exchange_pay" // the exchange's payment record for the order
)

// Valid reports whether m is a mode.
func (m Mode) Valid() bool {
	return m == ModeChain || m == ModeExchange || m == ModeDual || m == ModeExchangePay
}

// Network is one chain's USDT as configured: where we receive, which token,
// how deep a transfer must be, and how it is reviewed.
type Network struct {
	Name          string   `json:"name"`      // TRC20, BEP20, ...
	Addresses     []string `json:"addresses"` // our receiving addresses; the first is shown to payers
	Contract      string   `json:"contract"`  // the USDT token contract on this chain
	Decimals      int      `json:"decimals"`  // 6 on TRON, 18 on BSC
	Confirmations int64    `json:"confirmations"`
	Mode          Mode     `json:"mode"`
	// ExchangeNetwork is the exchange's name of this network in its deposit
	// history (TRX, BSC).
	ExchangeNetwork string `json:"exchangeNetwork"`
	// Sandbox marks a network offered to sandbox orders only (reviewed
	// against the simulators); live orders see only the others.
	Sandbox bool `json:"sandbox,omitempty"`
}

// Receives reports whether addr is one of our addresses on n.
func (n Network) Receives(addr string) bool {
	for _, a := range n.Addresses {
		if strings.EqualFold(a, addr) {
			return true
		}
	}
	return false
}

// ErrNotFound is a transaction, deposit or payment the backend does not
// know (yet): not mined, not credited, or never made.
var ErrNotFound = errors.New("usdt: not found")

// Tx is what a chain says about a transaction.
type Tx struct {
	Hash          string
	Success       bool      // the transaction executed without failure
	BlockTime     time.Time // when its block was made
	Confirmations int64     // blocks on top of its block, its own included
	Transfers     []TokenTransfer
}

// TokenTransfer is one token Transfer the transaction made (a TRC20
// transfer, a BEP20 Transfer log). Addresses are in the chain's own form:
// TRON base58check, BSC 0x + 40 lower-case hex.
type TokenTransfer struct {
	Contract string
	From     string
	To       string
	Units    *big.Int // at the token's decimals
}

// Chain reads transactions of one network.
type Chain interface {
	Tx(ctx context.Context, hash string) (Tx, error) // ErrNotFound when unknown or not yet in a block
}

// Deposit is one row of an exchange's deposit history.
type Deposit struct {
	TxID       string
	Coin       string // USDT
	Network    string // the exchange's network name (TRX, BSC)
	Address    string // the deposit address (ours)
	Amount     string // decimal literal as the exchange gives it
	Success    bool   // credited
	InsertTime time.Time
}

// Payment is an exchange's payment record for one of our orders (exchange
// pay: the payer paid the order inside the exchange).
type Payment struct {
	OrderID string
	Amount  string // decimal literal, USDT
	Coin    string
	Success bool
	TxID    string
	Time    time.Time
}

// Exchange reads our account at an exchange.
type Exchange interface {
	Deposit(ctx context.Context, network, txID string) (Deposit, error) // ErrNotFound
	Payment(ctx context.Context, orderID string) (Payment, error)       // ErrNotFound
}

// Units is a payable amount literal (at most 6 decimals, as reserved for
// the order) in token units at decimals, exactly: "12.347061" at 18 is
// 12347061000000000000. No float is involved anywhere.
func Units(payable string, decimals int) (*big.Int, error) {
	whole, frac, _ := strings.Cut(payable, ".")
	if whole == "" || len(frac) > decimals || strings.ContainsAny(whole+frac, "+-eE ") {
		return nil, fmt.Errorf("usdt: amount %q does not fit %d decimals", payable, decimals)
	}
	n, ok := new(big.Int).SetString(whole+frac+strings.Repeat("0", decimals-len(frac)), 10)
	if !ok || n.Sign() < 0 {
		return nil, fmt.Errorf("usdt: amount %q is not a decimal", payable)
	}
	return n, nil
}

// PayableLiteral is units at decimals as a payable amount literal (six
// decimals, as USDT.Reserve writes them), when it is one exactly: a
// transfer finer than a micro-USDT is nobody's payable amount.
func PayableLiteral(units *big.Int, decimals int) (string, bool) {
	if units == nil || units.Sign() <= 0 || decimals < 6 {
		return "", false
	}
	q, r := new(big.Int).QuoRem(units, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals-6)), nil), new(big.Int))
	if r.Sign() != 0 {
		return "", false
	}
	s := fmt.Sprintf("%07s", q.String())
	return s[:len(s)-6] + "." + s[len(s)-6:], true
}

// Review outcomes.
const (
	OutcomeApproved = "approved" // the transfer pays the order
	OutcomeRejected = "rejected" // it does not; the order stays payable and the payer sees why
	OutcomeWaiting  = "waiting"  // undecidable automatically: an administrator decides
	// OutcomeAttached is an administrator's putting a hash under review on
	// an order (history only: the review then decides as for any hash).
	OutcomeAttached = "attached"
)

// Decision is one step of an order's review, kept in the order's history:
// who (a reviewer process, or "admin:<name>"), when, what and why.
type Decision struct {
	By       string    `json:"by"`
	Hash     string    `json:"hash,omitempty"` // the transaction hash decided on
	At       time.Time `json:"at"`
	Outcome  string    `json:"outcome"`
	Reason   string    `json:"reason,omitempty"`   // machine word: wrong_amount, wrong_address, wrong_token, too_old, failed_tx, hash_used, not_found, unconfirmed, backend_down, disagree
	Note     string    `json:"note,omitempty"`     // free text (an administrator's note, a backend's error)
	Evidence string    `json:"evidence,omitempty"` // what was seen (block, amount, address), for support
	// Finding is what a wrong_amount rejection found: the transfer carried
	// less (underpaid) or more (overpaid) than the order asked. The
	// order's event carries it, so the merchant is told which.
	Finding string `json:"finding,omitempty"`
}
