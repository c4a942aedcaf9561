package ledger

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/schema"
)

// paidKept is how long a day's paid counters (and an order's mark) stay:
// the operator console shows today's, a zone's offset from UTC aside.
const paidKept = 3 * 24 * time.Hour

// countPaid adds one paid order to its channel's day, once per order.
var countPaid = redis.NewScript(`
if not redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[2]) then return 0 end
redis.call('HINCRBY', KEYS[1], 'n', 1)
redis.call('HINCRBY', KEYS[1], 'amt', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
`)

// hasChannel reports whether o went through a provider's channel: select
// (never chosen), usdt_direct and balance have none.
func hasChannel(o *schema.Order) bool {
	switch o.Method {
	case schema.MethodSelect, schema.MethodUSDTDirect, schema.MethodBalance, "":
		return false
	}
	return !o.PaidWithBalance
}

// channelEffects is what an order's end means to its channel: an order
// ended unpaid (failed, cancelled, expired) gives its cap reservation back;
// a paid one counts in the channel's paid orders of the day. Both are
// idempotent, so a Redis error leaves the event pending to come back.
func (p *Poster) channelEffects(ctx context.Context, ev *schema.Event) error {
	o := &ev.Order
	if !hasChannel(o) {
		return nil
	}
	ref := channel.OfOrder(o)
	switch ev.Type {
	case schema.EventFailed, schema.EventCancelled:
		if _, err := p.caps.Release(ctx, ref, o.ID); err != nil {
			return err
		}
	case schema.EventPaid:
		return p.countPaid(ctx, ref, o)
	}
	return nil
}

func (p *Poster) countPaid(ctx context.Context, ref channel.Ref, o *schema.Order) error {
	at := o.CompletedAt
	if at.IsZero() {
		at = o.UpdatedAt
	}
	day := p.channels.Now().SettingsOf(ref).Day(at)
	amt, cur := o.Charge()
	r := ref.String()
	n, err := countPaid.Run(ctx, p.rdb, []string{schema.ChannelPaidKey(r, day), schema.ChannelPaidMarkKey(r, o.ID)},
		int64(amt), strconv.FormatInt(int64(paidKept/time.Second), 10)).Int()
	if err != nil {
		return fmt.Errorf("count paid order %s of channel %s: %w", o.ID, r, err)
	}
	if n == 1 {
		p.m.channelPaid.WithLabelValues(r, cur).Add(float64(amt))
	}
	return nil
}

// WithChannels gives the poster the channels' routing copy, whose time
// zones name the day a paid order counts in; without it every channel's
// day is UTC's. It returns p.
func (p *Poster) WithChannels(dir *channel.Directory) *Poster {
	p.channels = dir
	return p
}
