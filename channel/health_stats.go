package channel

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// statsFor is how long a minute's counts are kept: the console reads the
// last StatsMinutes of them.
const statsFor = time.Hour

// StatsMinutes is the span, in minutes, of the success rate the console
// and the CLI show.
const StatsMinutes = 15

const minuteLayout = "200601021504"

// statsBuffer holds this process's counts until the next flush, so the
// create path never waits on Redis for them: one pipeline a second at most
// carries every channel's counts.
type statsBuffer struct {
	mu      sync.Mutex
	pending map[statsSlot]*[2]int64 // ok, fail
	last    time.Time
}

type statsSlot struct {
	ref    string
	minute string
}

func (s *statsBuffer) init() { s.pending = map[statsSlot]*[2]int64{} }

func (s *statsBuffer) add(r Ref, now time.Time, failed bool) {
	k := statsSlot{r.String(), now.UTC().Format(minuteLayout)}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.pending[k]
	if c == nil {
		c = new([2]int64)
		s.pending[k] = c
	}
	if failed {
		c[1]++
	} else {
		c[0]++
	}
}

// take empties the buffer when a second has passed since the last take
// (always, when force).
func (s *statsBuffer) take(now time.Time, force bool) map[statsSlot]*[2]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) == 0 || (!force && now.Sub(s.last) < time.Second) {
		return nil
	}
	out := s.pending
	s.pending, s.last = map[statsSlot]*[2]int64{}, now
	return out
}

// due reports whether a background flush would take anything now.
func (s *statsBuffer) due(now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending) > 0 && now.Sub(s.last) >= time.Second
}

// maybeFlush writes the counts in the background, one flush at a time.
// The batch is taken under the write lock, so a Flush that runs meanwhile
// either finds the counts itself or waits until they are written.
func (h *Health) maybeFlush(ctx context.Context, now time.Time) {
	if !h.stats.due(now) || !h.flushing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer h.flushing.Store(false)
		h.writing.Lock()
		defer h.writing.Unlock()
		if err := h.write(context.WithoutCancel(ctx), h.stats.take(now, false)); err != nil {
			h.log.Warn("channel attempt counts not written", "err", err)
		}
	}()
}

// Run writes the counts each second, also when no attempt comes to
// trigger it (a channel whose breaker opened is tried no more, and its last
// failures must still reach the console), and once more when ctx ends.
func (h *Health) Run(ctx context.Context) {
	platform.Every(ctx, time.Second, func(ctx context.Context) { h.maybeFlush(ctx, h.cfg.Now()) })
	if err := h.Flush(context.WithoutCancel(ctx)); err != nil {
		h.log.Warn("channel attempt counts not written at shutdown", "err", err)
	}
}

// Flush writes the counts not yet written (at shutdown, and in tests),
// after the background write under way, so once it returns every count
// reported before it is in Redis.
func (h *Health) Flush(ctx context.Context) error {
	h.writing.Lock()
	defer h.writing.Unlock()
	return h.write(ctx, h.stats.take(h.cfg.Now(), true))
}

func (h *Health) write(ctx context.Context, batch map[statsSlot]*[2]int64) error {
	if len(batch) == 0 {
		return nil
	}
	_, err := h.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for k, c := range batch {
			key := schema.ChannelStatsKey(k.ref, k.minute)
			if c[0] > 0 {
				p.HIncrBy(ctx, key, "ok", c[0])
			}
			if c[1] > 0 {
				p.HIncrBy(ctx, key, "fail", c[1])
			}
			p.Expire(ctx, key, statsFor)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("write channel attempt counts: %w", err)
	}
	return nil
}

// Attempts are a channel's initialisations over a span, every process's.
type Attempts struct{ OK, Fail int64 }

// Rate is the success rate in per cent, -1 when there was no attempt.
func (a Attempts) Rate() int {
	n := a.OK + a.Fail
	if n == 0 {
		return -1
	}
	return int(a.OK * 100 / n)
}

// ReadAttempts sums r's counts over the minutes minutes up to now.
func ReadAttempts(ctx context.Context, rdb redis.Cmdable, r Ref, now time.Time, minutes int) (Attempts, error) {
	cmds := make([]*redis.MapStringStringCmd, 0, minutes)
	_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := range minutes {
			m := now.UTC().Add(-time.Duration(i) * time.Minute).Format(minuteLayout)
			cmds = append(cmds, p.HGetAll(ctx, schema.ChannelStatsKey(r.String(), m)))
		}
		return nil
	})
	if err != nil {
		return Attempts{}, fmt.Errorf("read attempt counts of %s: %w", r, err)
	}
	var a Attempts
	for _, c := range cmds {
		ok, _ := strconv.ParseInt(c.Val()["ok"], 10, 64)
		fail, _ := strconv.ParseInt(c.Val()["fail"], 10, 64)
		a.OK += ok
		a.Fail += fail
	}
	return a, nil
}
