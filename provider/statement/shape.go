package statement

import (
	"errors"
	"time"
)

// Shape is a family's statement: the header name of each column and how
// its times are written.
type Shape struct {
	Ref, Order, Amount, Currency, Fee, Net, Time, Account string
	// TimeLayout is time.Parse's layout; times without a zone are UTC.
	TimeLayout string
}

// Header is the shape's header row, in the order Write writes it.
func (s Shape) Header() []string {
	return []string{s.Ref, s.Order, s.Amount, s.Currency, s.Fee, s.Net, s.Time, s.Account}
}

// Limits bound what a statement may cost to read.
type Limits struct {
	MaxRows int // rows after the header
	MaxLine int // bytes of one line
}

// DefaultLimits hold a busy channel's day with room to spare: a million
// payments a day must parse; a line never needs more than a few hundred
// bytes.
var DefaultLimits = Limits{MaxRows: 2_000_000, MaxLine: 4096}

// Validate refuses limits that would bound nothing.
func (l Limits) Validate() error {
	if l.MaxRows <= 0 || l.MaxLine <= 0 {
		return errors.New("statement limits: rows and line length must be positive")
	}
	return nil
}

// Row is one settled payment as a simulator writes it.
type Row struct {
	Ref, Order, Currency, Account string
	Amount, Fee                   int64 // minor units; Net is Amount - Fee
	At                            time.Time
}
