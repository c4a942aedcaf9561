package projector

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
)

// trimLoop trims each stream below the oldest entry some group still needs:
// never MAXLEN blindly (DESIGN.md). Until every group in TrimGroups exists on
// a stream, that stream is not trimmed, so a dispatcher that has not started
// yet misses nothing.
func (p *Projector) trimLoop(ctx context.Context) {
	platform.Every(ctx, p.cfg.TrimEvery, func(ctx context.Context) {
		for _, s := range p.streams {
			if err := p.trim(ctx, s); err != nil && ctx.Err() == nil {
				p.log.Warn("trim stream", "stream", s, "err", err)
			}
			if err := p.forgetGone(ctx, s); err != nil && ctx.Err() == nil {
				p.log.Warn("remove idle consumers", "stream", s, "err", err)
			}
		}
	})
}

// trim removes entries older than every group's oldest unacknowledged one.
func (p *Projector) trim(ctx context.Context, stream string) error {
	floor, ok, err := p.safeFloor(ctx, stream)
	if err != nil || !ok {
		return err
	}
	n, err := p.rdb.XTrimMinIDApprox(ctx, stream, floor, 0).Result()
	if err != nil {
		return fmt.Errorf("xtrim: %w", err)
	}
	p.m.trimmed.Add(float64(n))
	return nil
}

// safeFloor is the lowest id any required group may still need: its oldest
// pending entry, or when it has none, its last delivered entry (everything
// before that is acknowledged).
func (p *Projector) safeFloor(ctx context.Context, stream string) (string, bool, error) {
	groups, err := p.rdb.XInfoGroups(ctx, stream).Result()
	if err != nil {
		return "", false, fmt.Errorf("xinfo groups: %w", err)
	}
	byName := map[string]redis.XInfoGroup{}
	for _, g := range groups {
		byName[g.Name] = g
	}
	floor := ""
	for _, name := range p.cfg.TrimGroups {
		g, ok := byName[name]
		if !ok {
			return "", false, nil
		}
		need := g.LastDeliveredID
		if g.Pending > 0 {
			pend, err := p.rdb.XPending(ctx, stream, name).Result()
			if err != nil && !errors.Is(err, redis.Nil) {
				return "", false, fmt.Errorf("xpending: %w", err)
			}
			if pend != nil && pend.Count > 0 {
				need = pend.Lower
			}
		}
		if floor == "" || lessID(need, floor) {
			floor = need
		}
	}
	return floor, floor != "" && floor != "0-0", nil
}

// lessID orders stream ids ("ms-seq") numerically.
func lessID(a, b string) bool {
	var am, as, bm, bs uint64
	fmt.Sscanf(a, "%d-%d", &am, &as)
	fmt.Sscanf(b, "%d-%d", &bm, &bs)
	return am < bm || (am == bm && as < bs)
}

// goneAfter is how long a consumer with nothing pending may stay idle before
// it is removed: every restart joins under a new name, and the group would
// otherwise list every process that ever ran.
const goneAfter = time.Hour

func (p *Projector) forgetGone(ctx context.Context, stream string) error {
	consumers, err := p.rdb.XInfoConsumers(ctx, stream, Group).Result()
	if err != nil {
		return fmt.Errorf("xinfo consumers: %w", err)
	}
	for _, c := range consumers {
		if c.Pending == 0 && c.Idle > goneAfter && c.Name != p.cfg.Consumer {
			if err := p.rdb.XGroupDelConsumer(ctx, stream, Group, c.Name).Err(); err != nil {
				return fmt.Errorf("delete consumer %s: %w", c.Name, err)
			}
		}
	}
	return nil
}
