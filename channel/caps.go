package channel

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

var (
	//go:embed caps.lua
	capsLua string
	//go:embed release.lua
	releaseLua string

	reserveScript = redis.NewScript(capsLua)
	releaseScript = redis.NewScript(releaseLua)
)

// holdFor is how long a cap day's counters and an order's hold are kept:
// past the longest-lived unpaid order, and a day of the zone's offset.
const holdFor = 3 * 24 * time.Hour

// Verdicts of a reservation.
type Reserved int

const (
	ReservedOK Reserved = iota // reserved (or reserved before)
	FullCount                  // the daily count cap is reached
	FullAmount                 // the daily amount cap would be passed
	NotCapped                  // nothing to reserve: the channel has no cap
)

// Caps counts capped channels' daily use in Redis. Only a capped channel
// costs a round trip; the reservation is one script, so two hundred
// concurrent orders against a cap of ten reserve exactly ten.
type Caps struct{ rdb redis.Cmdable }

// NewCaps wraps rdb.
func NewCaps(rdb redis.Cmdable) *Caps { return &Caps{rdb: rdb} }

// Reserve takes orderID's amount (in the charged currency) from c's caps
// of the day at now. A retry for the same order takes nothing more.
func (cp *Caps) Reserve(ctx context.Context, c Candidate, orderID string, amount schema.Amount, now time.Time) (Reserved, error) {
	s := c.Settings
	if !s.Capped() {
		return NotCapped, nil
	}
	day := s.Day(now)
	ref := c.Ref.String()
	res, err := reserveScript.Run(ctx, cp.rdb, []string{schema.ChannelCapKey(ref, day), schema.ChannelCapHoldKey(ref, orderID)},
		int64(amount), int64(s.DailyAmount), s.DailyCount, day+":"+strconv.FormatInt(int64(amount), 10), int64(holdFor/time.Second)).Int()
	if err != nil {
		return 0, fmt.Errorf("reserve cap of channel %s: %w", ref, err)
	}
	switch res {
	case 0:
		return FullCount, nil
	case -1:
		return FullAmount, nil
	}
	return ReservedOK, nil
}

// Release gives back what orderID reserved on ref, once; nothing held is
// no error (never capped, or released before).
func (cp *Caps) Release(ctx context.Context, ref Ref, orderID string) (bool, error) {
	r := ref.String()
	hold := schema.ChannelCapHoldKey(r, orderID)
	v, err := cp.rdb.Get(ctx, hold).Result()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read cap hold of %s: %w", orderID, err)
	}
	day, amt, ok := strings.Cut(v, ":")
	if !ok {
		return false, fmt.Errorf("cap hold of %s: malformed %q", orderID, v)
	}
	n, err := releaseScript.Run(ctx, cp.rdb, []string{schema.ChannelCapKey(r, day), hold}, v, amt).Int()
	if err != nil {
		return false, fmt.Errorf("release cap of channel %s: %w", r, err)
	}
	return n == 1, nil
}

// Usage is a channel's use of its caps on one day.
type Usage struct {
	Count  int64
	Amount schema.Amount
}

// Used reads ref's counters for day.
func (cp *Caps) Used(ctx context.Context, ref Ref, day string) (Usage, error) {
	h, err := cp.rdb.HGetAll(ctx, schema.ChannelCapKey(ref.String(), day)).Result()
	if err != nil {
		return Usage{}, fmt.Errorf("read cap use of %s: %w", ref, err)
	}
	n, _ := strconv.ParseInt(h["n"], 10, 64)
	a, _ := strconv.ParseInt(h["amt"], 10, 64)
	return Usage{Count: n, Amount: schema.Amount(a)}, nil
}
