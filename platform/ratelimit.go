package platform

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
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

// Human is the limit as people write it, "5/s burst 10", for the CLI.
func (l Limit) Human() string {
	return strconv.FormatFloat(l.PerSecond, 'f', -1, 64) + "/s burst " + strconv.Itoa(l.Burst)
}

//go:embed scripts/ratelimit.lua
var rateLimitLua string

// The classes of limit the gateway enforces, each a budget of its own per
// subject.
const (
	ClassCreate = "create" // POST/GET /api/createorder, POST /api/order/cancel and /refund, per merchant
	ClassQuery  = "query"  // GET /api/order's order and webhooks, and the sandbox driver, per merchant
	// ClassReport is GET /api/order's ClickHouse reads (orders, summary,
	// timeseries, export), per merchant: ClickHouse serves far fewer of
	// them than Redis serves action=order, so they have a budget of their
	// own and a listing flood cannot use up the merchant's order polls.
	ClassReport = "report"
	ClassPages  = "pages" // payer pages (checkout, QR image), per client IP
	ClassLogin  = "login" // payer logins at /merchant/login, per client IP and per account
)

// OnRedisError is what a class of limit does with a request when Redis
// cannot answer the limiter (down, unreachable, refusing commands, or too
// slow for the request's context).
type OnRedisError int

const (
	// FailClosed refuses the request: 503 unavailable. The zero value, so
	// that a class nobody decided on is not silently unlimited.
	FailClosed OnRedisError = iota
	// FailOpen lets the request through unlimited.
	FailOpen
)

func (p OnRedisError) String() string {
	if p == FailOpen {
		return "open"
	}
	return "closed"
}

// LimiterConfig is the limiter's policy when Redis fails.
type LimiterConfig struct {
	// OnRedisError says, per class, whether a request is let through or
	// refused when Redis cannot answer; nil means DefaultOnRedisError(). A
	// class the map does not name fails closed: a new limit (a login-attempt
	// limit, say) is refused rather than lifted until someone decides.
	OnRedisError map[string]OnRedisError
}

// DefaultOnRedisError is the gateway's policy (README, "Rate limits when
// Redis fails"):
//   - create, query and report fail open. Their callers are merchants who signed the
//     request with their key, so a flood has a known author we can disable;
//     and the request needs Redis itself (the order scripts, the live order),
//     so while Redis is down it fails anyway and letting it past the limiter
//     costs nothing. When only the limiter's call fails, refusing would turn
//     a limiter fault into lost payments and merchants blind to their orders.
//   - pages fail closed. Their callers are anonymous: the per-IP limit is
//     the only bound on what anyone on the internet can make us do (render
//     QR images, submit checkout forms). The pages read the order from
//     Redis, so while Redis is down a payer is refused either way; when only
//     the limiter fails, a 503 the payer can reload is cheaper than an
//     unlimited page.
//   - login fails closed: it is the only bound on password guessing.
func DefaultOnRedisError() map[string]OnRedisError {
	return map[string]OnRedisError{ClassCreate: FailOpen, ClassQuery: FailOpen, ClassReport: FailOpen, ClassPages: FailClosed, ClassLogin: FailClosed}
}

// LimiterDefaults is the gateway's policy, DefaultOnRedisError.
func LimiterDefaults() LimiterConfig { return LimiterConfig{OnRedisError: DefaultOnRedisError()} }

// withDefaults fills a nil policy from LimiterDefaults; an empty map given
// on purpose stays (every class then fails closed).
func (c LimiterConfig) withDefaults() LimiterConfig {
	if c.OnRedisError == nil {
		c.OnRedisError = LimiterDefaults().OnRedisError
	}
	return c
}

// Validate refuses a policy with an unnamed class or a value that is
// neither FailOpen nor FailClosed; it changes nothing.
func (c LimiterConfig) Validate() error {
	var errs []error
	for class, p := range c.OnRedisError {
		if class == "" {
			errs = append(errs, errors.New("rate limiter: a policy names no class"))
		}
		if p != FailOpen && p != FailClosed {
			errs = append(errs, fmt.Errorf("rate limiter: class %q has policy %d, neither open nor closed", class, int(p)))
		}
	}
	return errors.Join(errs...)
}

// Limiter enforces limits in Redis, so all command nodes share them. A
// Redis write per request would halve the create path's throughput (each
// write waits for an AOF fsync), so a busy subject leases a few requests'
// worth at once — about 20 ms of its rate, at most a quarter of its burst —
// and spends them in the process before they go stale. A small limit leases
// one at a time and is exact.
type Limiter struct {
	rdb     redis.UniversalClient
	script  *redis.Script
	onError map[string]OnRedisError
	limited *prometheus.CounterVec
	errors  *prometheus.CounterVec
	log     *slog.Logger
	now     func() time.Time

	mu     sync.Mutex
	leases map[string]*lease
	leased int // script calls, for tests
}

// lease is requests taken from Redis and not yet spent here.
type lease struct {
	left     int
	expires  time.Time
	fetching chan struct{} // closed when the lease being fetched is kept
}

// maxLease bounds what one process may hold, whatever the rate.
const maxLease = 100

// leaseWindow is the least time a lease is held: what it covers of a busy
// subject's rate (leaseSize), and what an idle process may sit on.
const leaseWindow = 20 * time.Millisecond

// leaseSize is how many requests to ask for at once.
func leaseSize(l Limit) int {
	return max(1, min(int(l.PerSecond*leaseWindow.Seconds()), l.Burst/4, maxLease))
}

// NewLimiter registers the limiter's counters.
func NewLimiter(rdb redis.UniversalClient, cfg LimiterConfig, reg prometheus.Registerer, log *slog.Logger) (*Limiter, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	limited := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gateway_rate_limited_total", Help: "Requests refused with 429, by limit class.",
	}, []string{"class"})
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gateway_ratelimit_errors_total",
		Help: "Limiter calls Redis did not answer, by limit class; the class's policy let the request through or refused it with 503.",
	}, []string{"class"})
	for _, c := range []prometheus.Collector{limited, errs} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register the rate limiter's metrics: %w", err)
		}
	}
	// Every class starts at 0, so a rate over the errors is defined before
	// the first one.
	for class := range cfg.OnRedisError {
		errs.WithLabelValues(class)
	}
	return &Limiter{rdb: rdb, script: redis.NewScript(rateLimitLua), onError: cfg.OnRedisError,
		limited: limited, errors: errs, log: log, now: time.Now, leases: map[string]*lease{}}, nil
}

// Allow takes one request of subject from class's limit, or answers the
// 429 error with how long to wait. If Redis cannot answer, the class's
// OnRedisError decides (unanswered).
func (l *Limiter) Allow(ctx context.Context, class, subject string, lim Limit) error {
	if l == nil {
		return nil // limits off (tests of other concerns)
	}
	key := schema.RateLimitKey(class, subject)
	// One lease request per key at a time: when a lease runs out under load,
	// the requests that find it empty wait for the one fetching the next
	// instead of all asking Redis (which would cost a write each, and keep
	// only one of the leases they got).
	var mine *lease
	for mine == nil {
		ls, wait, ok := l.spend(key)
		if ok {
			return nil
		}
		if mine = ls; mine == nil {
			select {
			case <-wait: // one Redis call away
			case <-ctx.Done():
				return l.unanswered(class, ctx.Err())
			}
		}
	}
	want := leaseSize(lim)
	interval := 1e6 / lim.PerSecond
	tolerance := interval * float64(lim.Burst-1)
	res, err := l.script.Run(ctx, l.rdb, []string{key}, int64(math.Ceil(interval)), int64(tolerance), want).Int64Slice()
	if err != nil {
		l.keep(key, mine, 0, 0)
		return l.unanswered(class, err)
	}
	if granted := int(res[0]); granted > 0 {
		// Held for the lease window at least: at a limit far above the
		// traffic, the time the rate takes to grant a lease is microseconds,
		// and the lease would go stale before its second request.
		l.keep(key, mine, granted-1, max(leaseWindow, time.Duration(float64(granted)*interval)*time.Microsecond))
		return nil
	}
	l.keep(key, mine, 0, 0)
	l.limited.WithLabelValues(class).Inc()
	return &RateLimited{RetryAfter: time.Duration(res[1]) * time.Microsecond}
}

// unanswered counts a limiter call Redis did not answer and applies the
// class's policy: nil lets the request through, else a 503 refuses it.
func (l *Limiter) unanswered(class string, err error) error {
	l.errors.WithLabelValues(class).Inc()
	if l.onError[class] == FailOpen {
		l.log.Warn("rate limit unavailable; request let through", "class", class, "err", err)
		return nil
	}
	l.log.Warn("rate limit unavailable; request refused", "class", class, "err", err)
	return &Error{Kind: KindUnavailable, Msg: "rate limit unavailable; try again shortly", Err: fmt.Errorf("rate limit %s: %w", class, err)}
}

// spend takes one request from a live lease of key (ok). Otherwise either
// another request is fetching the next lease (wait until wait is closed),
// or the caller is to fetch it: then mine is the lease, marked fetching.
func (l *Limiter) spend(key string) (mine *lease, wait <-chan struct{}, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ls := l.leases[key]
	if ls != nil && ls.left > 0 && !l.now().After(ls.expires) {
		ls.left--
		return nil, nil, true
	}
	if ls != nil && ls.fetching != nil {
		return nil, ls.fetching, false
	}
	if len(l.leases) > 100_000 {
		clear(l.leases) // bounded: subjects are merchants and client IPs
	}
	ls = &lease{fetching: make(chan struct{})}
	l.leases[key] = ls
	return ls, nil, false
}

// keep stores the lease this request fetched: what Redis granted beyond
// the request, for span, so an idle process wastes no more of the shared
// budget than that; and wakes the requests that waited for it.
func (l *Limiter) keep(key string, ls *lease, left int, span time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.leased++
	ls.left, ls.expires = left, l.now().Add(span)
	close(ls.fetching)
	ls.fetching = nil
	l.leases[key] = ls
}

// RateLimited is a 429; the error handler adds Retry-After.
type RateLimited struct {
	RetryAfter time.Duration
}

func (e *RateLimited) Error() string {
	return fmt.Sprintf("rate limit exceeded; retry after %v", e.RetryAfter.Round(time.Millisecond))
}

// RetryAfterSeconds is Retry-After's whole seconds, rounded up.
func (e *RateLimited) RetryAfterSeconds() string {
	return strconv.Itoa(max(1, int(math.Ceil(e.RetryAfter.Seconds()))))
}
