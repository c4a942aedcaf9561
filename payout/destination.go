package payout

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/usdt"
)

// Kind is what a destination is: a bank account, or a USDT address on one
// network.
type Kind string

const (
	Bank  Kind = "bank"
	TRC20 Kind = "usdt_trc20"
	BEP20 Kind = "usdt_bep20"
	ERC20 Kind = "usdt_erc20"
)

// Network is the USDT network of a USDT kind, "" for a bank.
func (k Kind) Network() string {
	switch k {
	case TRC20:
		return "TRC20"
	case BEP20:
		return "BEP20"
	case ERC20:
		return "ERC20"
	}
	return ""
}

// Currency says whether a payout of a balance in cur may go to a
// destination of kind k. USDT goes out 1:1 from a USD balance (balances are
// kept in the orders' ISO currencies); any balance may go to a bank. A
// payout never converts at a rate: the merchant receives what it holds.
func (k Kind) Currency(cur string) bool {
	if k.Network() != "" {
		return cur == "USD"
	}
	return k == Bank
}

// Destination is where a merchant's payouts go. It never changes once
// saved: a change is a new destination (with its own cooling-off) and the
// old one removed, so a payout always names what it was sent to.
type Destination struct {
	ID      string    `json:"id"`
	AppID   string    `json:"appid"`
	Kind    Kind      `json:"kind"`
	Label   string    `json:"label,omitempty"`
	Holder  string    `json:"holder,omitempty"`  // bank: the account holder's name
	Bank    string    `json:"bank,omitempty"`    // bank: the bank's name
	Account string    `json:"account,omitempty"` // bank: the account number (IBAN, card, local form)
	Branch  string    `json:"branch,omitempty"`  // bank: branch, routing or SWIFT fields, free text
	Address string    `json:"address,omitempty"` // USDT: the address on Kind's network
	By      string    `json:"by"`                // who saved it ("user:<id>")
	Created time.Time `json:"created"`
	// Usable is when payouts may go to it: Created plus the cooling-off
	// period, so a stolen session cannot redirect money at once.
	Usable  time.Time `json:"usable"`
	Removed time.Time `json:"removed,omitzero"`
}

// UsableAt says whether payouts may go to d at t.
func (d Destination) UsableAt(t time.Time) bool { return d.Removed.IsZero() && !t.Before(d.Usable) }

// Where is the destination in a few words for lists and audit details,
// never more of an account number than its last four characters.
func (d Destination) Where() string {
	if d.Kind == Bank {
		return d.Bank + " ····" + last4(d.Account)
	}
	return d.Kind.Network() + " " + d.Address
}

func last4(s string) string {
	r := []rune(s)
	return string(r[max(0, len(r)-4):])
}

// Bounds of a bank destination's free text: a person's names and numbers,
// never a document.
const (
	maxName    = 128
	maxAccount = 64
	maxBranch  = 256
)

// Check refuses a destination that cannot be paid to, saying which field
// is wrong (a 400).
func (d Destination) Check() error {
	bad := func(field, why string) error {
		return platform.Errorf(platform.KindInvalidParameter, "%s %s", field, why)
	}
	if utf8.RuneCountInString(d.Label) > maxName || !printable(d.Label) {
		return bad("label", fmt.Sprintf("must be printable text of at most %d characters", maxName))
	}
	switch d.Kind {
	case Bank:
		for _, f := range []struct {
			name, v string
			max     int
		}{{"holder", d.Holder, maxName}, {"bank", d.Bank, maxName}, {"account", d.Account, maxAccount}, {"branch", d.Branch, maxBranch}} {
			n := utf8.RuneCountInString(f.v)
			if (n == 0 && f.name != "branch") || n > f.max || !printable(f.v) {
				return bad(f.name, fmt.Sprintf("must be printable text of 1 to %d characters", f.max))
			}
		}
		if d.Address != "" {
			return bad("address", "belongs to a USDT destination")
		}
	case TRC20, BEP20, ERC20:
		if !usdt.ValidAddress(d.Kind.Network(), d.Address) {
			return bad("address", "is not a valid "+d.Kind.Network()+" address")
		}
		if d.Holder+d.Bank+d.Account+d.Branch != "" {
			return bad("account", "belongs to a bank destination")
		}
	default:
		return bad("kind", "must be bank, usdt_trc20, usdt_bep20 or usdt_erc20")
	}
	return nil
}

// printable refuses control characters (a line break in a bank field
// would split a CSV or a log line) and invalid UTF-8.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	return !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) })
}

// stored is a destination as its hash keeps it: the times also in ms,
// which the request script compares.
type stored struct {
	Destination
	UsableMs  int64 `json:"usableMs"`
	RemovedMs int64 `json:"removedMs,omitempty"`
}

func (d Destination) encode() string {
	w := stored{Destination: d, UsableMs: d.Usable.UnixMilli()}
	if !d.Removed.IsZero() {
		w.RemovedMs = d.Removed.UnixMilli()
	}
	b, _ := json.Marshal(w) // plain fields: never fails
	return string(b)
}

func decodeDestination(s string) (Destination, error) {
	var w stored
	if err := json.Unmarshal([]byte(s), &w); err != nil {
		return Destination{}, fmt.Errorf("decode payout destination: %w", err)
	}
	return w.Destination, nil
}
