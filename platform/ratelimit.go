package platform

import (
	"context"
	_ "embed"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// Limit is a sustained rate with a burst: "500/s:1000" allows 1,000 at once,
// then 500 a second.
type Limit struct {
	PerSecond float64
	Burst     int
}

// ParseLimit reads RATE/UNIT[:BURST] with UNIT s, m or h; the burst
// defaults to one second's worth (at least 1).
func ParseLimit(s string) (Limit, error) {
	rate, burst, hasBurst := strings.Cut(strings.TrimSpace(s), ":")
	num, unit, ok := strings.Cut(rate, "/")
	n, err := strconv.ParseFloat(num, 64)
	per := map[string]float64{"s": 1, "m": 60, "h": 3600}[unit]
	if !ok || err != nil || n <= 0 || per == 0 {
		return Limit{}, fmt.Errorf("rate limit %q: want RATE/s, RATE/m or RATE/h, optionally :BURST", s)
	}
	l := Limit{PerSecond: n / per, Burst: max(1, int(math.Ceil(n/per)))}
	if hasBurst {
		b, err := strconv.Atoi(burst)
		if err != nil || b < 1 {
			return Limit{}, fmt.Errorf("rate limit %q: burst must be a positive whole number", s)
		}
		l.Burst = b
	}
	return l, nil
}

// String is the form ParseLimit reads.
func (l Limit) String() string {
	return strconv.FormatFloat(l.PerSecond, 'f', -1, 64) + "/s:" + strconv.Itoa(l.Burst)
}

//go:embed scripts/ratelimit.lua
var rateLimitLua string

// Limiter enforces limits in Redis, so all command nodes share them.
type Limiter struct {
	rdb     *redis.Client
	script  *redis.Script
	limited *prometheus.CounterVec
	log     *slog.Logger
}

// NewLimiter registers the limiter's counter.
func NewLimiter(rdb *redis.Client, reg prometheus.Registerer, log *slog.Logger) (*Limiter, error) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gateway_rate_limited_total", Help: "Requests refused with 429, by limit class.",
	}, []string{"class"})
	if err := reg.Register(c); err != nil {
		return nil, err
	}
	return &Limiter{rdb: rdb, script: redis.NewScript(rateLimitLua), limited: c, log: log}, nil
}

// Allow takes one request of subject from class's limit, or answers the
// 429 error with how long to wait. If Redis cannot answer, the request is
// let through: a limiter fault must not stop payments by itself.
func (l *Limiter) Allow(ctx context.Context, class, subject string, lim Limit) error {
	if l == nil {
		return nil // limits off (tests of other concerns)
	}
	interval := 1e6 / lim.PerSecond
	tolerance := interval * float64(lim.Burst-1)
	wait, err := l.script.Run(ctx, l.rdb, []string{"gw:rl:" + class + ":" + subject},
		int64(math.Ceil(interval)), int64(tolerance)).Int64()
	if err != nil {
		l.log.Warn("rate limit unavailable; request let through", "class", class, "err", err)
		return nil
	}
	if wait == 0 {
		return nil
	}
	l.limited.WithLabelValues(class).Inc()
	return &RateLimited{RetryAfter: time.Duration(wait) * time.Microsecond}
}

// RateLimited is a 429; the error handler adds Retry-After.
type RateLimited struct {
	RetryAfter time.Duration
}

func (e *RateLimited) Error() string {
	return fmt.Sprintf("rate limit exceeded; retry after %v", e.RetryAfter.Round(time.Millisecond))
}

// retryAfterSeconds is Retry-After's whole seconds, rounded up.
func (e *RateLimited) retryAfterSeconds() string {
	return strconv.Itoa(max(1, int(math.Ceil(e.RetryAfter.Seconds()))))
}

// PerIP limits a route group by client address, for the payer pages.
func (l *Limiter) PerIP(class string, lim Limit, ip *ClientIP) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if l == nil {
			return c.Next()
		}
		if err := l.Allow(c.UserContext(), class, ip.Of(c).String(), lim); err != nil {
			return err
		}
		return c.Next()
	}
}
