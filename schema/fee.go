package schema

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// FeeSchedule is what the platform charges a merchant for one payment:
// Bps basis points of the amount plus Fixed, then at least Min and, when
// Max is set, at most Max, all in the order's currency (minor units). The
// schedule in force is written on the order when it is initialised
// (FFee), so a later change never reprices a payment already under way.
type FeeSchedule struct {
	Bps   int64
	Fixed Amount
	Min   Amount
	Max   Amount // 0: no maximum
}

// MaxFeeBps bounds a fee at the whole amount.
const MaxFeeBps = 10000

// Zero reports a schedule that charges nothing.
func (f FeeSchedule) Zero() bool { return f == FeeSchedule{} }

// Validate refuses a schedule that could never be right.
func (f FeeSchedule) Validate() error {
	switch {
	case f.Bps < 0 || f.Bps > MaxFeeBps:
		return fmt.Errorf("fee basis points %d: 0 to %d", f.Bps, MaxFeeBps)
	case f.Fixed < 0 || f.Min < 0 || f.Max < 0:
		return errors.New("fee amounts cannot be negative")
	case f.Fixed > MaxAmount || f.Min > MaxAmount || f.Max > MaxAmount:
		return errors.New("fee amounts are at most 1000000000.00")
	case f.Max > 0 && f.Min > f.Max:
		return fmt.Errorf("fee minimum %s is above its maximum %s", f.Min, f.Max)
	}
	return nil
}

// Fee is the fee on amount: rounded half up to the minor unit, then held
// between Min and Max, and never more than amount itself, so a payment's
// net is never negative.
func (f FeeSchedule) Fee(amount Amount) Amount {
	if amount <= 0 || f.Zero() {
		return 0
	}
	n := new(big.Int).Mul(big.NewInt(int64(amount)), big.NewInt(f.Bps))
	n.Add(n, big.NewInt(MaxFeeBps/2))
	fee := Amount(n.Quo(n, big.NewInt(MaxFeeBps)).Int64()) + f.Fixed
	fee = max(fee, f.Min)
	if f.Max > 0 {
		fee = min(fee, f.Max)
	}
	return min(fee, amount)
}

// String is the schedule as the order's field holds it: "bps:fixed:min:max"
// in minor units; "" for a zero schedule (nothing is written).
func (f FeeSchedule) String() string {
	if f.Zero() {
		return ""
	}
	return fmt.Sprintf("%d:%d:%d:%d", f.Bps, f.Fixed, f.Min, f.Max)
}

// ParseFeeSchedule reads String's form; "" is the zero schedule.
func ParseFeeSchedule(s string) (FeeSchedule, error) {
	if s == "" {
		return FeeSchedule{}, nil
	}
	parts := strings.Split(s, ":")
	if len(parts) != 4 {
		return FeeSchedule{}, fmt.Errorf("fee schedule %q: want bps:fixed:min:max", s)
	}
	var n [4]int64
	for i, p := range parts {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return FeeSchedule{}, fmt.Errorf("fee schedule %q: %w", s, err)
		}
		n[i] = v
	}
	f := FeeSchedule{Bps: n[0], Fixed: Amount(n[1]), Min: Amount(n[2]), Max: Amount(n[3])}
	return f, f.Validate()
}
