package platform

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
)

func TestParseLimit(t *testing.T) {
	tests := []struct {
		in   string
		want Limit
		ok   bool
	}{
		{"500/s:1000", Limit{500, 1000}, true},
		{"500/s", Limit{500, 500}, true},
		{"60/m", Limit{1, 1}, true},
		{"7200/h:10", Limit{2, 10}, true},
		{"0.5/s", Limit{0.5, 1}, true},
		{"500", Limit{}, false},
		{"500/d", Limit{}, false},
		{"-1/s", Limit{}, false},
		{"5/s:0", Limit{}, false},
		{"5/s:x", Limit{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseLimit(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Fatalf("ParseLimit(%q) = %+v, %v", tt.in, got, err)
			}
			if tt.ok {
				if again, _ := ParseLimit(got.String()); again != got {
					t.Fatalf("String() %q does not parse back", got.String())
				}
			}
		})
	}
}

// TestLimiterBurstThenRefuse: a burst passes at once, the next request is
// refused with a wait near one emission interval, and other subjects and
// classes have their own budgets.
func TestLimiterBurstThenRefuse(t *testing.T) {
	l, err := NewLimiter(testenv.Redis(t), LimiterConfig{}, prometheus.NewRegistry(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	lim := Limit{PerSecond: 1, Burst: 3}
	for i := range 3 {
		if err := l.Allow(ctx, "create", "1001", lim); err != nil {
			t.Fatalf("request %d of the burst refused: %v", i+1, err)
		}
	}
	err = l.Allow(ctx, "create", "1001", lim)
	var rl *RateLimited
	if !errors.As(err, &rl) || rl.RetryAfter <= 0 || rl.RetryAfter.Seconds() > 1.01 {
		t.Fatalf("4th request: %v", err)
	}
	if err := l.Allow(ctx, "create", "1002", lim); err != nil {
		t.Fatalf("another merchant shares the budget: %v", err)
	}
	if err := l.Allow(ctx, "query", "1001", lim); err != nil {
		t.Fatalf("another class shares the budget: %v", err)
	}

}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// TestLimiterLeases: a busy subject costs one Redis call per lease, not per
// request, and leasing never lets more through than the shared budget.
func TestLimiterLeases(t *testing.T) {
	l, err := NewLimiter(testenv.Redis(t), LimiterConfig{}, prometheus.NewRegistry(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	big := Limit{PerSecond: 1000, Burst: 1000}
	for i := range 200 {
		if err := l.Allow(ctx, "create", "busy", big); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if l.leased > 12 {
		t.Fatalf("%d Redis calls for 200 requests with leases of %d", l.leased, leaseSize(big))
	}
	small := Limit{PerSecond: 100, Burst: 100}
	allowed := 0
	start := time.Now()
	for range 150 {
		if l.Allow(ctx, "create", "tight", small) == nil {
			allowed++
		}
	}
	if limit := 100 + int(100*time.Since(start).Seconds()) + leaseSize(small); allowed < 100 || allowed > limit {
		t.Fatalf("%d of 150 allowed; the budget allows %d", allowed, limit)
	}
}

// TestLimiterLeasesUnderConcurrency: when a busy subject's lease runs out,
// one request fetches the next and the others wait for it, so Redis is
// asked about once per lease, not once per waiting request.
func TestLimiterLeasesUnderConcurrency(t *testing.T) {
	l, err := NewLimiter(testenv.Redis(t), LimiterConfig{}, prometheus.NewRegistry(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	lim := Limit{PerSecond: 1_000_000, Burst: 1_000_000} // leases of maxLease
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			for range 50 {
				if err := l.Allow(context.Background(), "create", "busy", lim); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	l.mu.Lock()
	calls := l.leased
	l.mu.Unlock()
	t.Logf("%d requests, %d Redis calls", 64*50, calls)
	if most := 64*50/maxLease + 8; calls > most {
		t.Fatalf("%d requests made %d Redis calls; leases of %d should need at most %d", 64*50, calls, maxLease, most)
	}
}

// TestLimiterWhenRedisFails: when Redis cannot answer, each class does what
// its OnRedisError says (DefaultOnRedisError unless the case sets its own),
// and every unanswered call is counted in gateway_ratelimit_errors_total.
// Redis fails three ways: the client is closed, the server is gone, and the
// server answers every command with an error (LOADING, as after a restart).
func TestLimiterWhenRedisFails(t *testing.T) {
	failures := []struct {
		name  string
		redis func(t *testing.T) *redis.Client
	}{
		{"client closed", func(t *testing.T) *redis.Client {
			c := redis.NewClient(&redis.Options{Addr: miniredis.RunT(t).Addr()})
			_ = c.Close()
			return c
		}},
		{"server gone", func(t *testing.T) *redis.Client {
			mr := miniredis.RunT(t)
			// One dial per call: go-redis's five dial attempts 100 ms apart
			// would only slow the test.
			c := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1, DialerRetries: 1})
			t.Cleanup(func() { _ = c.Close() })
			mr.Close()
			return c
		}},
		{"server refuses commands", func(t *testing.T) *redis.Client {
			mr := miniredis.RunT(t)
			mr.SetError("LOADING Redis is loading the dataset in memory")
			c := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1})
			t.Cleanup(func() { _ = c.Close() })
			return c
		}},
	}
	tests := []struct {
		name    string
		policy  map[string]OnRedisError // nil: the defaults
		class   string
		allowed bool
	}{
		{"create fails open", nil, ClassCreate, true},
		{"query fails open", nil, ClassQuery, true},
		{"pages fail closed", nil, ClassPages, false},
		{"a class nobody decided on fails closed", nil, "login", false},
		{"create set to fail closed", map[string]OnRedisError{ClassCreate: FailClosed}, ClassCreate, false},
		{"pages set to fail open", map[string]OnRedisError{ClassPages: FailOpen}, ClassPages, true},
		{"a class a set policy leaves out fails closed", map[string]OnRedisError{ClassPages: FailOpen}, ClassQuery, false},
	}
	lim := Limit{PerSecond: 1000, Burst: 1000} // leases of 20: a lease kept after a failure would show
	for _, f := range failures {
		t.Run(f.name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					l, err := NewLimiter(f.redis(t), LimiterConfig{OnRedisError: tt.policy}, prometheus.NewRegistry(),
						slog.New(slog.NewTextHandler(io.Discard, nil)))
					if err != nil {
						t.Fatal(err)
					}
					const calls = 3
					for i := range calls {
						err := l.Allow(context.Background(), tt.class, "1001", lim)
						switch {
						case tt.allowed && err != nil:
							t.Fatalf("call %d: refused (%v), want it let through", i+1, err)
						case !tt.allowed && err == nil:
							t.Fatalf("call %d: let through, want a 503 unavailable", i+1)
						case !tt.allowed && Classify(err) != (ErrorBody{Code: 503, Error: "unavailable", Msg: "rate limit unavailable; try again shortly"}):
							t.Fatalf("call %d: %v (%+v), want a 503 unavailable", i+1, err, Classify(err))
						}
					}
					if got := testutil.ToFloat64(l.errors.WithLabelValues(tt.class)); got != calls {
						t.Errorf("gateway_ratelimit_errors_total{class=%q} = %v after %d calls, want %d", tt.class, got, calls, calls)
					}
					if got := testutil.ToFloat64(l.limited.WithLabelValues(tt.class)); got != 0 {
						t.Errorf("gateway_rate_limited_total{class=%q} = %v: an unanswered call is no 429", tt.class, got)
					}
				})
			}
		})
	}
}

// TestLimiterAfterRedisRecovers: once Redis answers again, a class that
// failed closed is limited as before, not refused, and nothing else is
// counted as an error.
// The script runs on the real Redis (README: scripts are tested on Redis,
// whose Lua miniredis does not share); a proxy makes it refuse commands.
func TestLimiterAfterRedisRecovers(t *testing.T) {
	direct := testenv.Redis(t).Options()
	proxy := newFaultProxy(t, direct.Addr)
	c := redis.NewClient(&redis.Options{Addr: proxy.addr(), DB: direct.DB, Username: direct.Username, Password: direct.Password, MaxRetries: -1})
	t.Cleanup(func() { _ = c.Close() })
	l, err := NewLimiter(c, LimiterConfig{}, prometheus.NewRegistry(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	lim := Limit{PerSecond: 1, Burst: 2}
	proxy.refuse("LOADING Redis is loading the dataset in memory")
	if err := l.Allow(ctx, ClassPages, "192.0.2.1", lim); err == nil {
		t.Fatal("pages let through while Redis refuses commands")
	}
	proxy.refuse("")
	for i := range 2 {
		if err := l.Allow(ctx, ClassPages, "192.0.2.1", lim); err != nil {
			t.Fatalf("request %d of the burst after Redis recovered: %v", i+1, err)
		}
	}
	var rl *RateLimited
	if err := l.Allow(ctx, ClassPages, "192.0.2.1", lim); !errors.As(err, &rl) {
		t.Fatalf("3rd request after Redis recovered: %v, want a 429", err)
	}
	if got := testutil.ToFloat64(l.errors.WithLabelValues(ClassPages)); got != 1 {
		t.Fatalf("gateway_ratelimit_errors_total{class=pages} = %v, want 1", got)
	}
}
