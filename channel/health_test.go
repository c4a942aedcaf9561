package channel

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
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

func TestProbeLeaseIsHeldByOneProcess(t *testing.T) {
	rig := newHealthRig(t)
	h1, h2 := rig.health(t, false), rig.health(t, true)
	ctx := context.Background()
	b := rig.openBreaker(t, h1, h2.dir)
	cand := Candidate{Ref: walletB, Breaker: b}
	if h1.Probe(ctx, cand) || h2.Probe(ctx, cand) {
		t.Fatal("probed before the cool-down")
	}
	rig.clock.Add(30 * time.Second)
	first, second := h1.Probe(ctx, cand), h2.Probe(ctx, cand)
	if !first || second {
		t.Fatalf("probe granted to %v and %v, want the first process only", first, second)
	}
	if got := rig.breaker(t); got.State != HalfOpen {
		t.Fatalf("breaker %+v, want half open while probed", got)
	}
	if !h2.Probe(ctx, Candidate{Ref: walletB, Breaker: Breaker{State: Closed}}) {
		t.Fatal("a closed breaker refused")
	}
}

func TestClosedBreakerProbeCostsNoRedis(t *testing.T) {
	rig := newHealthRig(t)
	h := rig.health(t, false)
	rig.rdb.Close() // any Redis call now fails, and a failed call refuses
	if !h.Probe(context.Background(), Candidate{Ref: walletB}) {
		t.Fatal("a closed breaker needed Redis")
	}
}

func TestProbeOutcomeClosesOrReopens(t *testing.T) {
	tests := []struct {
		name   string
		result Outcome
		want   BreakerState
		action string
	}{
		{"success closes", ok, Closed, ActionBreakerClose},
		{"refusal is an answer: closes", refused, Closed, ActionBreakerClose},
		{"failure opens again", timeout, Open, ActionBreakerOpen},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig := newHealthRig(t)
			h, ctx := rig.health(t, false), context.Background()
			b := rig.openBreaker(t, h)
			rig.clock.Add(31 * time.Second)
			if !h.Probe(ctx, Candidate{Ref: walletB, Breaker: b}) {
				t.Fatal("no probe after the cool-down")
			}
			h.Report(ctx, walletB, tt.result)
			got := rig.breaker(t)
			if got.State != tt.want {
				t.Fatalf("breaker %+v, want %s", got, tt.want)
			}
			if tt.want == Open && !got.Probe.Equal(rig.clock.Now().Add(30*time.Second)) {
				t.Fatalf("reopened breaker probes at %v, want another cool-down", got.Probe)
			}
			es := rig.entries(t)
			// open, half open, then the probe's verdict
			if len(es) != 3 || es[1]["action"] != ActionBreakerHalfOpen || es[2]["action"] != tt.action || es[2]["realm"] != audit.RealmSystem {
				t.Fatalf("audit entries %v", es)
			}
		})
	}
}

// An outcome reported by a process that does not hold the lease is not
// the probe's: a request in flight when the breaker opened never closes it.
func TestOnlyTheProbeClosesTheBreaker(t *testing.T) {
	rig := newHealthRig(t)
	h := rig.health(t, false)
	rig.openBreaker(t, h)
	h.Report(context.Background(), walletB, ok)
	if got := rig.breaker(t); got.State != Open {
		t.Fatalf("breaker %+v closed by an outcome that was no probe", got)
	}
}

func TestTripRaceWritesOneEntry(t *testing.T) {
	rig := newHealthRig(t)
	hs := []*Health{rig.health(t, true), rig.health(t, true), rig.health(t, true), rig.health(t, true)}
	var wg sync.WaitGroup
	for _, h := range hs {
		wg.Go(func() { h.Report(context.Background(), walletB, Outcome{Reason: ReasonKeyword, Keyword: "restricted"}) })
	}
	wg.Wait()
	if got := rig.breaker(t); got.State != Open {
		t.Fatalf("breaker %+v", got)
	}
	if n := len(rig.entries(t)); n != 1 {
		t.Fatalf("%d audit entries for one trip by four processes, want 1", n)
	}
}

// Two processes that read the breaker closed both try to open it: the
// compare-and-set lets one write, and the other logs nothing.
func TestStaleTripWritesNothing(t *testing.T) {
	rig := newHealthRig(t)
	h1, h2 := rig.health(t, true), rig.health(t, true)
	ctx := context.Background()
	now := rig.clock.Now()
	h1.move(ctx, walletB, now, Breaker{}, h1.opened(now, "first"))
	h2.move(ctx, walletB, now, Breaker{}, h2.opened(now, "second"))
	if got := rig.breaker(t); got.Reason != "first" {
		t.Fatalf("breaker %+v, want the first writer's", got)
	}
	if n := len(rig.entries(t)); n != 1 {
		t.Fatalf("%d audit entries, want 1", n)
	}
}

func TestManualOpenAndClose(t *testing.T) {
	rig := newHealthRig(t)
	h, ctx := rig.health(t, false), context.Background()
	rig.openBreaker(t, h)
	person := audit.Entry{At: rig.clock.Now(), ActorID: "o1", ActorEmail: "ops@op.test", Realm: audit.RealmOperator, Role: "admin", Source: "192.0.2.9"}
	if err := rig.store.SetBreakerByHand(ctx, walletB, Closed, "provider lifted the restriction", "ops@op.test", rig.clock.Now(), person); err != nil {
		t.Fatal(err)
	}
	b := rig.breaker(t)
	if b.State != Closed || b.By != "ops@op.test" || b.Reason != "provider lifted the restriction" {
		t.Fatalf("breaker %+v", b)
	}
	if err := rig.store.SetBreakerByHand(ctx, walletB, Open, "maintenance window", "ops@op.test", rig.clock.Now(), person); err != nil {
		t.Fatal(err)
	}
	if b := rig.breaker(t); b.State != Open || !b.Probe.IsZero() {
		t.Fatalf("breaker %+v: opened by hand must wait for a hand", b)
	}
	if err := rig.store.SetBreakerByHand(ctx, walletB, HalfOpen, "x", "ops", rig.clock.Now(), person); err == nil {
		t.Fatal("half open by hand accepted")
	}
	es := rig.entries(t)
	if len(es) != 3 || es[1]["action"] != ActionBreakerClose || es[1]["realm"] != audit.RealmOperator || es[1]["email"] != "ops@op.test" ||
		es[2]["action"] != ActionBreakerOpen {
		t.Fatalf("audit entries %v", es)
	}
	// Opened by hand: no probe ever comes.
	rig.clock.Add(time.Hour)
	if err := rig.dir.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if h.Probe(ctx, Candidate{Ref: walletB, Breaker: rig.dir.Now().BreakerOf(walletB)}) {
		t.Fatal("a breaker opened by hand was probed")
	}
}

// A close (by hand or probe) starts a fresh window: the failures that
// opened the breaker do not open it again with the next one.
func TestCloseStartsAFreshWindow(t *testing.T) {
	rig := newHealthRig(t)
	h, ctx := rig.health(t, false), context.Background()
	for range 4 {
		h.Report(ctx, walletB, timeout)
	}
	person := audit.Entry{At: rig.clock.Now(), ActorID: "cli", Realm: audit.RealmCLI, Source: "cli"}
	if err := rig.store.SetBreakerByHand(ctx, walletB, Closed, "checked", "ops", rig.clock.Now(), person); err != nil {
		t.Fatal(err)
	}
	if err := rig.dir.Load(ctx); err != nil {
		t.Fatal(err)
	}
	h.Report(ctx, walletB, timeout)
	if b := rig.breaker(t); b.State != Closed {
		t.Fatalf("breaker %+v: reopened on failures from before the close", b)
	}
}

func TestAttemptCountsAreClusterWide(t *testing.T) {
	rig := newHealthRig(t)
	h1, h2, ctx := rig.health(t, true), rig.health(t, true), context.Background()
	for _, o := range []Outcome{ok, ok, timeout} {
		h1.Report(ctx, walletB, o)
	}
	rig.clock.Add(time.Minute)
	h2.Report(ctx, walletB, ok)
	for _, h := range []*Health{h1, h2} {
		if err := h.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	a, err := ReadAttempts(ctx, rig.rdb, walletB, rig.clock.Now(), StatsMinutes)
	if err != nil || a != (Attempts{OK: 3, Fail: 1}) || a.Rate() != 75 {
		t.Fatalf("attempts %+v (%v), want 3 ok and 1 failed over both processes and minutes", a, err)
	}
	ttl := rig.rdb.TTL(ctx, schema.ChannelStatsKey(walletB.String(), rig.clock.Now().Format(minuteLayout))).Val()
	if ttl <= 0 || ttl > time.Hour {
		t.Fatalf("stats key TTL %v, want a short one", ttl)
	}
	if (Attempts{}).Rate() != -1 {
		t.Fatal("no attempts must read as no rate")
	}
}

func TestChannelMetrics(t *testing.T) {
	rig := newHealthRig(t)
	h, ctx := rig.health(t, false), context.Background()
	capped := Ref{Method: schema.MethodWalletA, ID: "c"}
	if err := rig.store.Set(ctx, capped, Settings{Weight: 1, DailyCount: 4, DailyAmount: 100_00}, entry("channel.set")); err != nil {
		t.Fatal(err)
	}
	if _, err := NewCaps(rig.rdb).Reserve(ctx, Candidate{Ref: capped, Settings: Settings{DailyCount: 4, DailyAmount: 100_00}}, "o1", 25_00, rig.clock.Now()); err != nil {
		t.Fatal(err)
	}
	h.Report(ctx, walletB, ok)
	h.Report(ctx, walletB, refused)
	h.Report(ctx, walletB, Outcome{Reason: ReasonKeyword, Keyword: "restricted"})
	if err := rig.dir.Load(ctx); err != nil {
		t.Fatal(err)
	}
	want := `
# HELP gateway_channel_breaker_state A channel's breaker: 0 closed, 1 half open, 2 open.
# TYPE gateway_channel_breaker_state gauge
gateway_channel_breaker_state{channel="wallet_a.b"} 2
# HELP gateway_channel_cap_used_ratio A capped channel's use of its daily cap today (its time zone's day), 0 to 1.
# TYPE gateway_channel_cap_used_ratio gauge
gateway_channel_cap_used_ratio{cap="amount",channel="wallet_a.c"} 0.25
gateway_channel_cap_used_ratio{cap="count",channel="wallet_a.c"} 0.25
`
	if err := testutil.GatherAndCompare(rig.reg, strings.NewReader(want), "gateway_channel_breaker_state", "gateway_channel_cap_used_ratio"); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(h.m.inits.WithLabelValues("wallet_a.b", "failed")); got != 1 {
		t.Fatalf("failed initialisations %v", got)
	}
	if got := testutil.ToFloat64(h.m.failures.WithLabelValues("wallet_a.b", "refused")); got != 1 {
		t.Fatalf("refusals %v", got)
	}
	if got := testutil.ToFloat64(h.m.inits.WithLabelValues("wallet_a.b", "ok")); got != 1 {
		t.Fatalf("ok initialisations %v", got)
	}
}

// BenchmarkHealthReport is the breaker's cost on the create path: an
// attempt reported on a closed channel (no Redis call but the flush, at
// most one a second, in the background).
func BenchmarkHealthReport(b *testing.B) {
	rdb := redis.NewClient(&redis.Options{Addr: miniredis.RunT(b).Addr()})
	defer rdb.Close()
	h, err := NewHealth(HealthConfig{}, NewStore(rdb), NewDirectory(rdb, time.Second, nil), rdb, prometheus.NewRegistry(), slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		h.Report(ctx, walletB, ok)
	}
}
