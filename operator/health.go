package operator

import (
	"context"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
)

// ProviderHealth is one provider over the window, summed over every
// process that published.
type ProviderHealth struct {
	Provider  string  `json:"provider"`
	Calls     int64   `json:"calls"`
	Errors    int64   `json:"errors"`
	ErrorRate float64 `json:"errorRate"` // errors / calls, 0 without calls
	P50       float64 `json:"p50Seconds"`
	P99       float64 `json:"p99Seconds"`
	Accepted  int64   `json:"notificationsAccepted"`
	Refused   int64   `json:"notificationsRefused"`
	Mismatch  int64   `json:"mismatches"`
	// Live: some process has it configured live, as it said within
	// liveFresh; LiveSeen is when one last did.
	Live     bool      `json:"live"`
	LiveSeen time.Time `json:"liveSeen,omitzero"`
}

// liveFresh: a process says which providers it has live at every publish
// (10 s); twice the minute is plenty.
const liveFresh = 2 * time.Minute

// Health reads what the publishers wrote.
type Health struct {
	rdb redis.UniversalClient
	now func() time.Time
}

// NewHealth reads provider health from rdb.
func NewHealth(rdb redis.UniversalClient) *Health { return &Health{rdb: rdb, now: time.Now} }

// Providers is every provider's health over the last window (an hour on
// the page), sorted by name.
func (h *Health) Providers(ctx context.Context, actor access.Actor, window time.Duration) ([]ProviderHealth, error) {
	if err := allow(actor, access.PermSettingsRead); err != nil {
		return nil, err
	}
	now := h.now()
	last := now.Unix() / 60
	minutes := int64(window / time.Minute)
	cmds := make([]*redis.MapStringStringCmd, 0, minutes)
	var live *redis.MapStringStringCmd
	_, err := h.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for m := last - minutes + 1; m <= last; m++ {
			cmds = append(cmds, p.HGetAll(ctx, HealthMinuteKey(m)))
		}
		live = p.HGetAll(ctx, HealthLiveKey)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	sums := map[string]map[string]int64{}
	for _, c := range cmds {
		for f, v := range c.Val() {
			prov, field, ok := strings.Cut(f, "|")
			n, err := strconv.ParseInt(v, 10, 64)
			if !ok || err != nil {
				continue
			}
			if sums[prov] == nil {
				sums[prov] = map[string]int64{}
			}
			sums[prov][field] += n
		}
	}
	seen := map[string]time.Time{}
	for prov, v := range live.Val() {
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
			seen[prov] = time.UnixMilli(ms).UTC()
			if sums[prov] == nil {
				sums[prov] = map[string]int64{}
			}
		}
	}
	out := make([]ProviderHealth, 0, len(sums))
	for prov, s := range sums {
		ph := ProviderHealth{Provider: prov, Calls: s[fCalls], Errors: s[fErrors], Accepted: s[fAccepted], Refused: s[fRefused],
			Mismatch: s[fMismatch], LiveSeen: seen[prov], Live: !seen[prov].IsZero() && now.Sub(seen[prov]) < liveFresh}
		if ph.Calls > 0 {
			ph.ErrorRate = float64(ph.Errors) / float64(ph.Calls)
		}
		b := buckets(s)
		ph.P50, ph.P99 = quantile(b, ph.Calls, 0.5), quantile(b, ph.Calls, 0.99)
		out = append(out, ph)
	}
	slices.SortFunc(out, func(a, b ProviderHealth) int { return strings.Compare(a.Provider, b.Provider) })
	return out, nil
}

type bucket struct {
	le  float64
	cum int64
}

// buckets are the latency buckets of one provider's sums, by bound.
func buckets(s map[string]int64) []bucket {
	var out []bucket
	for f, n := range s {
		if le, ok := strings.CutPrefix(f, fLE); ok {
			if v, err := strconv.ParseFloat(le, 64); err == nil {
				out = append(out, bucket{le: v, cum: n})
			}
		}
	}
	slices.SortFunc(out, func(a, b bucket) int {
		if a.le < b.le {
			return -1
		}
		return 1
	})
	return out
}

// quantile estimates the q-quantile of total observations from cumulative
// buckets as Prometheus's histogram_quantile does: linearly within the
// bucket the rank falls in; past the last finite bound, that bound.
func quantile(bs []bucket, total int64, q float64) float64 {
	if total == 0 || len(bs) == 0 {
		return 0
	}
	rank := q * float64(total)
	lower, below := 0.0, int64(0)
	for _, b := range bs {
		if float64(b.cum) >= rank {
			in := b.cum - below
			if in <= 0 {
				return b.le
			}
			return lower + (b.le-lower)*(rank-float64(below))/float64(in)
		}
		lower, below = b.le, b.cum
	}
	return math.Max(lower, 0)
}
