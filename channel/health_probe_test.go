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

// TestRunWritesCountsWithoutFurtherAttempts: a channel whose last attempt
// failed is tried no more (its breaker opens), yet the failure reaches the
// cluster-wide counts within a second or so, not at shutdown.
func TestRunWritesCountsWithoutFurtherAttempts(t *testing.T) {
	rig := newHealthRig(t)
	h := rig.health(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { h.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	h.Report(ctx, walletB, ok) // written at once: the buffer's first take
	waitAttempts(t, rig, func(a Attempts) bool { return a.OK == 1 })
	h.Report(ctx, walletB, timeout) // held: within the second of the last take
	rig.clock.Add(2 * time.Second)
	waitAttempts(t, rig, func(a Attempts) bool { return a.Fail == 1 })
}

func waitAttempts(t *testing.T, rig *healthRig, done func(Attempts) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		a, err := ReadAttempts(context.Background(), rig.rdb, walletB, rig.clock.Now(), StatsMinutes)
		if err == nil && done(a) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("attempts %+v (%v): not written while serving", a, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
