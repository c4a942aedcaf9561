package recon

import (
	"fmt"
	"sort"
	"time"

	"github.com/paygate/gateway/schema"
)

// Line is one transaction of a provider's statement, as its family's
// parser reads it.
type Line struct {
	Row         int    // 1-based row (or array index + 1) in the file, for the evidence
	ProviderRef string // the provider's id of the payment
	OrderID     string // our payment id, when the provider echoes it
	Amount      schema.Amount
	Fee         schema.Amount // what the provider kept
	Currency    string
	At          time.Time
}

// Payment is one of our paid payments on the statement's channel and day,
// in the provider's terms: the charged amount and currency, and the cost
// the channel's fee schedule priced.
type Payment struct {
	AppID       string // whose payment: its postings go on the merchant's shard
	OrderID     string
	ProviderRef string
	Amount      schema.Amount
	Fee         schema.Amount
	Currency    string
}

// Kind is what a finding says.
type Kind string

const (
	MissingWithUs     Kind = "missing_with_us"     // on the statement, not a payment of ours
	MissingAtProvider Kind = "missing_at_provider" // ours, not on the statement
	AmountDiffers     Kind = "amount_differs"
	FeeDiffers        Kind = "fee_differs"
	Duplicate         Kind = "duplicate" // a statement line for a payment matched already
)

// Finding is one difference, with what each side says.
type Finding struct {
	Kind    Kind
	Line    *Line    // nil for MissingAtProvider
	Payment *Payment // nil for MissingWithUs
}

// Evidence is the finding in a sentence an operator can act on.
func (f Finding) Evidence() string {
	switch f.Kind {
	case MissingWithUs:
		return fmt.Sprintf("statement row %d: %s %s (ref %s, order %q) matches no payment of ours", f.Line.Row,
			f.Line.Amount, f.Line.Currency, f.Line.ProviderRef, f.Line.OrderID)
	case MissingAtProvider:
		return fmt.Sprintf("payment %s of %s %s (ref %s) is not on the statement", f.Payment.OrderID, f.Payment.Amount,
			f.Payment.Currency, f.Payment.ProviderRef)
	case AmountDiffers:
		return fmt.Sprintf("statement row %d: %s %s, payment %s: %s %s", f.Line.Row, f.Line.Amount, f.Line.Currency,
			f.Payment.OrderID, f.Payment.Amount, f.Payment.Currency)
	case FeeDiffers:
		return fmt.Sprintf("statement row %d: fee %s %s, payment %s: cost %s %s", f.Line.Row, f.Line.Fee, f.Line.Currency,
			f.Payment.OrderID, f.Payment.Fee, f.Payment.Currency)
	}
	return fmt.Sprintf("statement row %d repeats payment %s (ref %s)", f.Line.Row, f.Payment.OrderID, f.Line.ProviderRef)
}

// Report is a statement's match.
type Report struct {
	Lines, Payments int
	Matched         []Matched
	Findings        []Finding
}

// Matched pairs a line with its payment: the provider's fee on it posts
// the channel's cost.
type Matched struct {
	Line    Line
	Payment Payment
}

// Count is how many findings of kind k the report holds.
func (r Report) Count(k Kind) int {
	n := 0
	for _, f := range r.Findings {
		if f.Kind == k {
			n++
		}
	}
	return n
}

// Match pairs each line with a payment by provider reference, else by
// order id, and says every difference: never a finding invented (a line
// pairs with at most one payment and a payment with at most one line) and
// none missed. Linear in lines and payments.
func Match(lines []Line, payments []Payment) Report {
	r := Report{Lines: len(lines), Payments: len(payments)}
	byRef := make(map[string]int, len(payments))
	byOrder := make(map[string]int, len(payments))
	for i, p := range payments {
		if p.ProviderRef != "" {
			byRef[p.ProviderRef] = i
		}
		byOrder[p.OrderID] = i
	}
	taken := make([]bool, len(payments))
	for i := range lines {
		l := &lines[i]
		k, ok := byRef[l.ProviderRef]
		if !ok || l.ProviderRef == "" {
			k, ok = byOrder[l.OrderID]
		}
		switch {
		case !ok || (l.ProviderRef == "" && l.OrderID == ""):
			r.Findings = append(r.Findings, Finding{Kind: MissingWithUs, Line: l})
		case taken[k]:
			r.Findings = append(r.Findings, Finding{Kind: Duplicate, Line: l, Payment: &payments[k]})
		default:
			taken[k] = true
			r.pair(l, &payments[k])
		}
	}
	for k := range payments {
		if !taken[k] {
			r.Findings = append(r.Findings, Finding{Kind: MissingAtProvider, Payment: &payments[k]})
		}
	}
	sort.SliceStable(r.Findings, func(i, j int) bool { return r.Findings[i].Kind < r.Findings[j].Kind })
	return r
}

func (r *Report) pair(l *Line, p *Payment) {
	switch {
	case l.Amount != p.Amount || l.Currency != p.Currency:
		r.Findings = append(r.Findings, Finding{Kind: AmountDiffers, Line: l, Payment: p})
	case l.Fee != p.Fee:
		// Still matched: the money arrived, and the cost posted is what the
		// provider kept; the finding asks why it is not what we priced.
		r.Findings = append(r.Findings, Finding{Kind: FeeDiffers, Line: l, Payment: p})
		r.Matched = append(r.Matched, Matched{Line: *l, Payment: *p})
	default:
		r.Matched = append(r.Matched, Matched{Line: *l, Payment: *p})
	}
}
