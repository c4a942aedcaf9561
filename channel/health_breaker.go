package channel

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Audit actions of a breaker's changes.
const (
	ActionBreakerOpen     = "channel.breaker_open"
	ActionBreakerHalfOpen = "channel.breaker_half_open"
	ActionBreakerClose    = "channel.breaker_close"
)

// Breaker reads r's breaker as stored, the zero Breaker when none is (a
// closed breaker that never moved): the value SetBreaker compares with.
func (st *Store) Breaker(ctx context.Context, r Ref) (Breaker, error) {
	v, err := st.rdb.HGet(ctx, schema.ChannelBreakersKey, r.String()).Result()
	if errors.Is(err, redis.Nil) {
		return Breaker{}, nil
	}
	if err != nil {
		return Breaker{}, fmt.Errorf("read breaker of %s: %w", r, err)
	}
	return decodeBreaker(v)
}

// closed reports whether a stored breaker lets every request through.
func (b Breaker) closed() bool { return b.State == "" || b.State == Closed }

// breakerEntry fills e as the record of r's breaker becoming b.
func breakerEntry(e audit.Entry, r Ref, b Breaker) audit.Entry {
	switch b.State {
	case Open:
		e.Action = ActionBreakerOpen
	case HalfOpen:
		e.Action = ActionBreakerHalfOpen
	default:
		e.Action = ActionBreakerClose
	}
	e.Target = "channel:" + r.String()
	e.Details = map[string]string{"channel": r.String(), "state": string(b.State), "reason": audit.Clip(b.Reason, audit.MaxText)}
	return e
}

// SetBreakerByHand opens (only by hand again: no probe) or closes r's
// breaker for a person, whose entry e (realm, actor, source) records it.
// A change by another process meanwhile is read again, a few times.
func (st *Store) SetBreakerByHand(ctx context.Context, r Ref, state BreakerState, reason, by string, now time.Time, e audit.Entry) error {
	if state != Open && state != Closed {
		return platform.Errorf(platform.KindInvalidParameter, "breaker state %q: open or closed", state)
	}
	next := Breaker{State: state, Reason: reason, Since: now.UTC(), By: by}
	e = breakerEntry(e, r, next)
	if err := e.Check(); err != nil {
		return err
	}
	for range 3 {
		cur, err := st.Breaker(ctx, r)
		if err != nil {
			return err
		}
		ok, err := st.SetBreaker(ctx, r, cur, next, e)
		if err != nil || ok {
			return err
		}
	}
	return platform.Errorf(platform.KindConflict, "breaker of %s is changing; try again", r)
}

// systemEntry is the gateway's own record of a breaker change.
func (h *Health) systemEntry(now time.Time, r Ref, b Breaker) audit.Entry {
	return breakerEntry(audit.Entry{At: now, Realm: audit.RealmSystem, Source: "system"}, r, b)
}

// move writes r's breaker from cur to next, logging only the winner of a
// race between processes.
func (h *Health) move(ctx context.Context, r Ref, now time.Time, cur, next Breaker) {
	ok, err := h.store.SetBreaker(ctx, r, cur, next, h.systemEntry(now, r, next))
	switch {
	case err != nil:
		h.log.Warn("channel breaker change failed", "channel", r.String(), "state", string(next.State), "err", err)
		return
	case ok:
		h.log.Info("channel breaker changed", "channel", r.String(), "state", string(next.State), "reason", next.Reason)
	}
	// Whoever won, the stored breaker moved: this process routes by it now
	// rather than at its next poll, or every create of the coming second
	// would spend part of its budget on the account just found restricted.
	h.dir.refresh(ctx)
}

func (h *Health) opened(now time.Time, why string) Breaker {
	return Breaker{State: Open, Reason: why, Since: now.UTC(), Probe: now.Add(h.cfg.CoolDown).UTC()}
}

// trip opens a closed breaker.
func (h *Health) trip(ctx context.Context, r Ref, now time.Time, why string) {
	cur, err := h.store.Breaker(ctx, r)
	if err != nil {
		h.log.Warn("channel breaker read failed", "channel", r.String(), "err", err)
		return
	}
	if cur.closed() {
		h.move(ctx, r, now, cur, h.opened(now, why))
	}
}

// reopen opens again a breaker whose probe failed (unless a person closed
// it meanwhile).
func (h *Health) reopen(ctx context.Context, r Ref, now time.Time, why string) {
	cur, err := h.store.Breaker(ctx, r)
	if err != nil {
		h.log.Warn("channel breaker read failed", "channel", r.String(), "err", err)
		return
	}
	if !cur.closed() {
		h.move(ctx, r, now, cur, h.opened(now, why))
	}
}

// closeAfterProbe closes a breaker whose probe succeeded.
func (h *Health) closeAfterProbe(ctx context.Context, r Ref, now time.Time) {
	cur, err := h.store.Breaker(ctx, r)
	if err != nil {
		h.log.Warn("channel breaker read failed", "channel", r.String(), "err", err)
		return
	}
	if !cur.closed() {
		h.move(ctx, r, now, cur, Breaker{State: Closed, Reason: "probe succeeded", Since: now.UTC()})
	}
}
