package channel

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/schema"
)

// clock is the breaker's fake time: tests move it, nothing sleeps.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

var walletB = Ref{Method: schema.MethodWalletA, ID: "b"}

type healthRig struct {
	rdb   *redis.Client
	clock *clock
	store *Store
	dir   *Directory
	reg   *prometheus.Registry
}

func newHealthRig(t *testing.T) *healthRig {
	t.Helper()
	rdb := newRedis(t)
	return &healthRig{rdb: rdb, clock: &clock{t: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)},
		store: NewStore(rdb), dir: NewDirectory(rdb, time.Second, nil), reg: prometheus.NewRegistry()}
}

// health is one process's breaker over the rig's Redis (its own directory
// and registry, as another process would have).
func (r *healthRig) health(t *testing.T, own bool) *Health {
	t.Helper()
	dir, reg := r.dir, prometheus.Registerer(r.reg)
	if own {
		dir, reg = NewDirectory(r.rdb, time.Second, nil), prometheus.NewRegistry()
	}
	h, err := NewHealth(HealthConfig{Now: r.clock.Now}, r.store, dir, r.rdb, reg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func (r *healthRig) breaker(t *testing.T) Breaker {
	t.Helper()
	b, err := r.store.Breaker(context.Background(), walletB)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// entries are the audit stream's actions, oldest first.
func (r *healthRig) entries(t *testing.T) []map[string]any {
	t.Helper()
	xs, err := r.rdb.XRange(context.Background(), auditStream, "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]map[string]any, len(xs))
	for i, x := range xs {
		out[i] = x.Values
	}
	return out
}

var (
	ok      = Outcome{OK: true}
	timeout = Outcome{Reason: ReasonTimeout}
	refused = Outcome{Reason: ReasonRefused}
)

func TestHealthConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  HealthConfig
		bad  bool
	}{
		{"defaults", HealthDefaults(), false},
		{"zero takes defaults", HealthConfig{}.withDefaults(), false},
		{"rate over 100", HealthConfig{MinRate: 101}.withDefaults(), true},
		{"negative in a row", HealthConfig{FailuresInRow: -1}.withDefaults(), true},
		{"window under a second", HealthConfig{Window: time.Millisecond}.withDefaults(), true},
		{"no cool-down", HealthConfig{CoolDown: time.Millisecond}.withDefaults(), true},
		{"negative attempts", HealthConfig{MinAttempts: -3}.withDefaults(), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err != nil) != tt.bad {
				t.Fatalf("Validate() = %v, want error %v", err, tt.bad)
			}
		})
	}
}

func TestBreakerTripRules(t *testing.T) {
	kw := Outcome{Reason: ReasonKeyword, Keyword: "account restricted"}
	tests := []struct {
		name   string
		steps  []Outcome
		spread time.Duration // between attempts
		gapAt  int           // a quiet minute before this step (0: none)
		open   bool
		reason string
	}{
		{"five timeouts in a row", repeat(timeout, 5), 0, 0, true, "5 failures in a row (last: timeout)"},
		{"four in a row stays closed", repeat(timeout, 4), 0, 0, false, ""},
		{"a success breaks the row", concat(repeat(timeout, 4), []Outcome{ok}, repeat(timeout, 4)), 0, 0, false, ""},
		{"refusals are the provider answering", repeat(refused, 30), 0, 0, false, ""},
		{"a keyword at once", []Outcome{kw}, 0, 0, true, "keyword: account restricted"},
		{"rate under half over twenty", repeatN([]Outcome{ok, timeout, timeout, timeout}, 5), 0, 0, true, "success rate 25% under 50% over 1m0s (20 attempts)"},
		{"rate under half but too few", repeatN([]Outcome{ok, timeout, timeout, timeout}, 4), 0, 0, false, ""},
		{"rate at half stays closed", repeatN([]Outcome{ok, timeout}, 20), 0, 0, false, ""},
		{"old failures leave the window", repeatN([]Outcome{ok, timeout, timeout, timeout}, 5), 4 * time.Second, 0, false, ""},
		{"a quiet minute empties the window", repeatN([]Outcome{ok, timeout, timeout, timeout}, 5), 0, 16, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig := newHealthRig(t)
			h := rig.health(t, false)
			for i, o := range tt.steps {
				if i > 0 && i == tt.gapAt {
					rig.clock.Add(61 * time.Second)
				}
				h.Report(context.Background(), walletB, o)
				rig.clock.Add(tt.spread)
			}
			b := rig.breaker(t)
			if got := b.State == Open; got != tt.open {
				t.Fatalf("breaker %+v, want open %v", b, tt.open)
			}
			if !tt.open {
				if n := len(rig.entries(t)); n != 0 {
					t.Fatalf("%d audit entries for a closed breaker", n)
				}
				return
			}
			// The tripping process routes by it at once, before any poll.
			if got := rig.dir.Now().BreakerOf(walletB); got.State != Open {
				t.Fatalf("the tripping process's directory still has %+v", got)
			}
			if b.Reason != tt.reason || !b.Probe.Equal(b.Since.Add(30*time.Second)) {
				t.Fatalf("breaker %+v, want reason %q and a probe after the cool-down", b, tt.reason)
			}
			es := rig.entries(t)
			if len(es) != 1 {
				t.Fatalf("%d audit entries, want 1", len(es))
			}
			e := es[0]
			if e["realm"] != audit.RealmSystem || e["action"] != ActionBreakerOpen || !strings.Contains(e["details"].(string), `"reason":"`+tt.reason) ||
				!strings.Contains(e["details"].(string), `"channel":"wallet_a.b"`) || !strings.Contains(e["details"].(string), `"state":"open"`) {
				t.Fatalf("audit entry %v", e)
			}
		})
	}
}

func repeat(o Outcome, n int) []Outcome { return repeatN([]Outcome{o}, n) }

func repeatN(os []Outcome, n int) []Outcome {
	var out []Outcome
	for range n {
		out = append(out, os...)
	}
	return out
}

func concat(parts ...[]Outcome) []Outcome {
	var out []Outcome
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// openBreaker trips walletB by keyword and loads it into the directories.
func (r *healthRig) openBreaker(t *testing.T, h *Health, dirs ...*Directory) Breaker {
	t.Helper()
	h.Report(context.Background(), walletB, Outcome{Reason: ReasonKeyword, Keyword: "restricted"})
	for _, d := range append(dirs, r.dir) {
		if err := d.Load(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	b := r.breaker(t)
	if b.State != Open {
		t.Fatalf("breaker %+v, want open", b)
	}
	return b
}
