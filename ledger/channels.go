package ledger

import (
	"context"
	"fmt"
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

// applyChannels is what orders' ends mean to their channels: an order
// ended unpaid (failed, cancelled, expired) gives its cap reservation back;
// a paid one counts in its channel's paid orders of the day (in one
// pipeline for the batch). Both are idempotent, so an entry whose part met
// a Redis error is left pending (neither posted nor acknowledged) and
// comes back.
func (p *Poster) applyChannels(ctx context.Context, all []prepared) {
	pipe := p.rdb.Pipeline()
	var cmds []*redis.Cmd
	var of []int // all's index of each of cmds
	var cur []string
	for i := range all {
		ev := all[i].ev
		if ev == nil || !hasChannel(&ev.Order) {
			continue
		}
		o := &ev.Order
		ref := channel.OfOrder(o)
		switch ev.Type {
		case schema.EventFailed, schema.EventCancelled:
			if _, err := p.caps.Release(ctx, ref, o.ID); err != nil {
				p.hold(&all[i], err)
			}
		case schema.EventPaid:
			at := o.CompletedAt
			if at.IsZero() {
				at = o.UpdatedAt
			}
			r, day := ref.String(), p.channels.Now().SettingsOf(ref).Day(at)
			amt, c := o.Charge()
			cmds = append(cmds, countPaid.Eval(ctx, pipe, []string{schema.ChannelPaidKey(r, day), schema.ChannelPaidMarkKey(r, o.ID)},
				int64(amt), int64(paidKept/time.Second)))
			of, cur = append(of, i), append(cur, c)
		}
	}
	if len(cmds) == 0 {
		return
	}
	_, _ = pipe.Exec(ctx) // each command's error is read below
	for k, c := range cmds {
		pr := &all[of[k]]
		n, err := c.Int()
		if err != nil {
			p.hold(pr, fmt.Errorf("count paid order %s: %w", pr.ev.Order.ID, err))
			continue
		}
		if n == 1 {
			amt, _ := pr.ev.Order.Charge()
			p.m.channelPaid.WithLabelValues(channel.OfOrder(&pr.ev.Order).String(), cur[k]).Add(float64(amt))
		}
	}
}

// hold leaves pr pending after its channel part failed.
func (p *Poster) hold(pr *prepared, err error) {
	p.m.postings.WithLabelValues(kindEvent, resultError).Inc()
	p.log.Warn("event left pending; it comes back", "stream", pr.stream, "id", pr.id, "err", err)
	pr.post, pr.done = false, false
}

// WithChannels gives the poster the channels' routing copy, whose time
// zones name the day a paid order counts in; without it every channel's
// day is UTC's. It returns p.
func (p *Poster) WithChannels(dir *channel.Directory) *Poster {
	p.channels = dir
	return p
}
