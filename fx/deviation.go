package fx

import (
	"fmt"
	"strconv"
)

// DeviationError is a new rate farther from the pair's current one than
// the operator's allowed deviation: a typo (1215 for 121.5) would charge
// every order of the pair ten times, so such a change needs the person to
// confirm it. The doors show it and ask (the console's confirmation, the
// CLI's --force).
type DeviationError struct {
	Pair         Pair
	Current, New Rate
	MaxPercent   int
}

func (e *DeviationError) Error() string {
	return fmt.Sprintf("%s/%s %s is %s%% %s the current %s, more than the %d%% a change may move it without a confirmation",
		e.Pair.Base, e.Pair.Quote, e.New, e.Percent(), e.Direction(), e.Current, e.MaxPercent)
}

// Percent is how far New is from Current, in percent of Current with one
// decimal ("900.0").
func (e *DeviationError) Percent() string {
	tenths := absDiff(e.New, e.Current) * 1000 / int64(e.Current)
	return strconv.FormatInt(tenths/10, 10) + "." + strconv.FormatInt(tenths%10, 10)
}

// Direction is "above" or "below".
func (e *DeviationError) Direction() string {
	if e.New > e.Current {
		return "above"
	}
	return "below"
}

// CheckDeviation refuses next as the pair's new rate when it is more than
// maxPercent percent of current away from current (either way); a pair
// without a rate (current 0) takes any. Integer arithmetic: rates are at
// most 10^15 millionths, maxPercent at most MaxDeviationPercent.
func CheckDeviation(p Pair, current, next Rate, maxPercent int) error {
	if current <= 0 || absDiff(next, current)*100 <= int64(maxPercent)*int64(current) {
		return nil
	}
	return &DeviationError{Pair: p, Current: current, New: next, MaxPercent: maxPercent}
}

// MaxDeviationPercent bounds the configurable deviation: beyond it the
// check would let any typo through.
const MaxDeviationPercent = 1000

func absDiff(a, b Rate) int64 {
	if a > b {
		return int64(a - b)
	}
	return int64(b - a)
}
