package channel

import (
	"context"
	"time"

	"github.com/paygate/gateway/schema"
)

// Probe reports whether this process may use candidate c now. A closed
// breaker always may, with no Redis call; a half-open one, or an open one
// whose cool-down is over, only for the one process that takes the probe
// lease, which then moves an open breaker to half open. The outcome the
// caller reports next for c is the probe's: success closes the breaker,
// failure opens it for another cool-down.
func (h *Health) Probe(ctx context.Context, c Candidate) bool {
	b := c.Breaker
	if b.closed() {
		return true
	}
	now := h.cfg.Now()
	if b.State == Open && (b.Probe.IsZero() || now.Before(b.Probe)) {
		return false
	}
	ref := c.Ref.String()
	got, err := h.rdb.SetNX(ctx, schema.ChannelProbeKey(ref), now.UTC().Format(time.RFC3339Nano), h.cfg.ProbeLease).Result()
	if err != nil {
		h.log.Warn("channel probe lease failed", "channel", ref, "err", err)
		return false
	}
	if !got {
		return false
	}
	h.mu.Lock()
	h.probing[c.Ref] = now.Add(h.cfg.ProbeLease)
	h.mu.Unlock()
	if b.State == Open {
		half := Breaker{State: HalfOpen, Reason: "probe after cool-down (" + b.Reason + ")", Since: now.UTC()}
		h.move(ctx, c.Ref, now, b, half)
	}
	return true
}

// probeOutcome reports (and forgets) whether this process holds r's probe
// lease at now, so the outcome it reports is the probe's.
func (h *Health) probeOutcome(r Ref, now time.Time) bool {
	until, ok := h.probing[r]
	delete(h.probing, r)
	return ok && now.Before(until)
}
