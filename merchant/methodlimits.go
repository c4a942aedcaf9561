package merchant

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/schema"
)

// A merchant's amount limits for a method are one hash field each,
// "ml:<method>" = "<min>-<max>" in minor units (an empty side is no bound):
// setting one method never rewrites another's, so two operators changing
// different methods cannot lose either change.
const fMethodLimitPrefix = "ml:"

// SetMethodLimits sets the merchant's amount limits for method m, in place
// of the gateway's default for it; zero on a side means no bound.
func (s *Store) SetMethodLimits(ctx context.Context, appid string, m schema.Method, l schema.AmountLimits) (*Account, error) {
	if !m.Selectable() {
		return nil, fmt.Errorf("method limits: %q is not a payment method", string(m))
	}
	if l.Min < 0 || l.Max < 0 || (l.Max > 0 && l.Min > l.Max) {
		return nil, fmt.Errorf("method limits for %s: min %s is above max %s", m, l.Min, l.Max)
	}
	return s.update(ctx, appid, map[string]any{fMethodLimitPrefix + string(m): encodeLimits(l)})
}

// ClearMethodLimits removes the merchant's limits for m: the default applies again.
func (s *Store) ClearMethodLimits(ctx context.Context, appid string, m schema.Method) (*Account, error) {
	n, err := s.rdb.Exists(ctx, schema.MerchantKey(appid)).Result()
	if err != nil {
		return nil, fmt.Errorf("read merchant %s: %w", appid, err)
	}
	if n == 0 {
		return nil, ErrNotFound
	}
	var entry []any
	if s.entry != nil {
		if entry, err = audit.Values(*s.entry); err != nil {
			return nil, err
		}
	}
	_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HDel(ctx, schema.MerchantKey(appid), fMethodLimitPrefix+string(m))
		p.Incr(ctx, schema.MerchantsVersionKey)
		if entry != nil { // Store.Audited: the entry in the same MULTI
			p.XAdd(ctx, &redis.XAddArgs{Stream: schema.AuditKey(merchantsTag), Values: entry})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("clear method limits of merchant %s: %w", appid, err)
	}
	return s.Get(ctx, appid)
}

func encodeLimits(l schema.AmountLimits) string {
	side := func(a schema.Amount) string {
		if a == 0 {
			return ""
		}
		return strconv.FormatInt(int64(a), 10)
	}
	return side(l.Min) + "-" + side(l.Max)
}

// methodLimitsFrom reads the overrides of a stored account; a value that no
// longer parses counts as none, like a rate limit override.
func methodLimitsFrom(h map[string]string) map[schema.Method]schema.AmountLimits {
	var out map[schema.Method]schema.AmountLimits
	for k, v := range h {
		m, ok := strings.CutPrefix(k, fMethodLimitPrefix)
		if !ok {
			continue
		}
		l, ok := decodeLimits(v)
		if !ok {
			continue
		}
		if out == nil {
			out = map[schema.Method]schema.AmountLimits{}
		}
		out[schema.Method(m)] = l
	}
	return out
}

func decodeLimits(v string) (schema.AmountLimits, bool) {
	lo, hi, ok := strings.Cut(v, "-")
	if !ok {
		return schema.AmountLimits{}, false
	}
	side := func(s string) (schema.Amount, bool) {
		if s == "" {
			return 0, true
		}
		n, err := strconv.ParseInt(s, 10, 64)
		return schema.Amount(n), err == nil && n > 0
	}
	min, okMin := side(lo)
	max, okMax := side(hi)
	return schema.AmountLimits{Min: min, Max: max}, okMin && okMax
}
