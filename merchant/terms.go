package merchant

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Terms are how the ledger treats a merchant's money: when a payment
// settles from pending to available, how much of it is held back as a
// rolling reserve and for how long, whether a refund gives the fee back,
// and whether its balance may go below zero. They live on the account,
// which every process caches, so the ledger and the refunds read them
// without a round trip.
type Terms struct {
	// Instant settles a payment at once; otherwise it settles DelayDays
	// days after the day it was paid, at CutoffHour in TimeZone.
	Instant    bool   `json:"instant,omitempty"`
	DelayDays  int    `json:"delayDays"`
	CutoffHour int    `json:"cutoffHour"`
	TimeZone   string `json:"tz,omitempty"`
	// ReserveBps of each settled payment is held in reserve for
	// ReserveDays days, then released to available.
	ReserveBps       int  `json:"reserveBps,omitempty"`
	ReserveDays      int  `json:"reserveDays,omitempty"`
	RefundReturnsFee bool `json:"refundReturnsFee,omitempty"`
	AllowNegative    bool `json:"allowNegative,omitempty"`
	// Payouts are the payout terms per balance currency (PayoutTerms).
	Payouts map[string]PayoutTerms `json:"payouts,omitempty"`
}

// DefaultTerms are a merchant's terms until an operator sets others: D+1 at
// 00:00 UTC, no reserve, the fee kept on refunds, never negative.
func DefaultTerms() Terms { return Terms{DelayDays: 1, TimeZone: "UTC"} }

// Validate checks terms an operator gives.
func (t Terms) Validate() error {
	switch {
	case t.DelayDays < 0 || t.DelayDays > 90:
		return fmt.Errorf("settlement delay %d days: 0 to 90", t.DelayDays)
	case t.CutoffHour < 0 || t.CutoffHour > 23:
		return fmt.Errorf("cut-off hour %d: 0 to 23", t.CutoffHour)
	case t.ReserveBps < 0 || t.ReserveBps > 10000:
		return fmt.Errorf("reserve %d basis points: 0 to 10000", t.ReserveBps)
	case t.ReserveDays < 0 || t.ReserveDays > 365:
		return fmt.Errorf("reserve hold %d days: 0 to 365", t.ReserveDays)
	case t.ReserveBps > 0 && t.ReserveDays == 0:
		return fmt.Errorf("a reserve needs a hold period of at least one day")
	}
	if _, err := t.location(); err != nil {
		return err
	}
	return t.validatePayouts()
}

func (t Terms) location() (*time.Location, error) {
	if t.TimeZone == "" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(t.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("time zone %q: %w", t.TimeZone, err)
	}
	return loc, nil
}

// SettleAt is when a payment paid at paid becomes available: at once when
// Instant, else at CutoffHour of the DelayDays-th day after paid's day in
// TimeZone (D+1 at 00:00: the midnight that ends the next day's start).
func (t Terms) SettleAt(paid time.Time) time.Time {
	if t.Instant {
		return paid
	}
	loc, err := t.location()
	if err != nil {
		loc = time.UTC
	}
	p := paid.In(loc)
	at := time.Date(p.Year(), p.Month(), p.Day()+t.DelayDays, t.CutoffHour, 0, 0, 0, loc)
	if at.Before(paid) {
		at = paid
	}
	return at.UTC()
}

// fTerms holds the account's terms as JSON; absent, DefaultTerms.
const fTerms = "terms"

func termsFrom(v string) Terms {
	if v == "" {
		return DefaultTerms()
	}
	var t Terms
	if err := json.Unmarshal([]byte(v), &t); err != nil || t.Validate() != nil {
		// Stored terms that no longer read are the defaults, never
		// instant: money never settles earlier than the operator chose.
		return DefaultTerms()
	}
	return t
}

// SetTerms replaces appid's terms.
func (s *Store) SetTerms(ctx context.Context, appid string, t Terms) (*Account, error) {
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("terms of %s: %w", appid, err)
	}
	b, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("encode terms: %w", err)
	}
	return s.update(ctx, appid, map[string]any{fTerms: string(b)})
}
