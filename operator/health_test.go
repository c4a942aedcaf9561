package operator

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/platform"
)

// proc is one gateway process's registry with the provider series under
// their real names.
type proc struct {
	reg      *prometheus.Registry
	calls    *prometheus.HistogramVec
	errs     *prometheus.CounterVec
	notified *prometheus.CounterVec
	mismatch *prometheus.CounterVec
}

func newProc() *proc {
	p := &proc{reg: prometheus.NewRegistry(),
		calls: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: famCallSeconds,
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}}, []string{"provider", "call"}),
		errs:     prometheus.NewCounterVec(prometheus.CounterOpts{Name: famCallErrors}, []string{"provider", "call", "kind"}),
		notified: prometheus.NewCounterVec(prometheus.CounterOpts{Name: famNotified}, []string{"provider", "verdict"}),
		mismatch: prometheus.NewCounterVec(prometheus.CounterOpts{Name: famMismatch}, []string{"provider", "reason"}),
	}
	p.reg.MustRegister(p.calls, p.errs, p.notified, p.mismatch)
	return p
}

// TestProviderHealthFromEveryProcess: two processes count calls and
// notifications in their own registries; the page's reader, which is
// neither, sees their sum; publishing again without new counts adds
// nothing, a restarted process's counters are not lost; a provider is
// live while some process says so; every operator role reads, a merchant
// user does not.
func TestProviderHealthFromEveryProcess(t *testing.T) {
	ctx := context.Background()
	rdb := miniRedis(t)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, b := newProc(), newProc()
	pa := NewHealthPublisher(rdb, a.reg, []string{"wallet_a"}, time.Second, quiet)
	pb := NewHealthPublisher(rdb, b.reg, nil, time.Second, quiet)
	for _, s := range []float64{0.02, 0.03, 2} {
		a.calls.WithLabelValues("wallet_a", "create").Observe(s)
	}
	a.errs.WithLabelValues("wallet_a", "create", "timeout").Inc()
	a.notified.WithLabelValues("wallet_a", "applied").Add(2)
	b.calls.WithLabelValues("wallet_a", "query").Observe(0.04)
	b.calls.WithLabelValues("wallet_b", "create").Observe(0.3)
	b.notified.WithLabelValues("wallet_a", "bad_signature").Inc()
	b.mismatch.WithLabelValues("wallet_a", "amount_mismatch").Inc()
	for _, p := range []*HealthPublisher{pa, pb, pa, pb} { // twice: the second adds nothing
		if err := p.Publish(ctx); err != nil {
			t.Fatal(err)
		}
	}
	h := NewHealth(rdb)
	got, err := h.Providers(ctx, opAuditor, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Provider != "wallet_a" || got[1].Provider != "wallet_b" {
		t.Fatalf("providers %+v", got)
	}
	w := got[0]
	if w.Calls != 4 || w.Errors != 1 || w.ErrorRate != 0.25 || w.Accepted != 2 || w.Refused != 1 || w.Mismatch != 1 || !w.Live {
		t.Fatalf("wallet_a %+v", w)
	}
	if w.P50 <= 0.025 || w.P50 > 0.05 || w.P99 <= 1 || w.P99 > 2.5 {
		t.Fatalf("wallet_a latency p50 %v p99 %v", w.P50, w.P99)
	}
	if wb := got[1]; wb.Calls != 1 || wb.Live || wb.P50 <= 0.25 || wb.P50 > 0.5 {
		t.Fatalf("wallet_b %+v", wb)
	}
	// b restarts: a new process, its counters from zero, counts one call.
	b2 := newProc()
	b2.calls.WithLabelValues("wallet_b", "create").Observe(0.3)
	if err := NewHealthPublisher(rdb, b2.reg, nil, time.Second, quiet).Publish(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ = h.Providers(ctx, opSupport, time.Hour); got[1].Calls != 2 {
		t.Fatalf("after b's restart wallet_b has %d calls, want 2", got[1].Calls)
	}
	// An hour and more later nothing of it is in the window, and no
	// process has said wallet_a is live for minutes.
	h.now = func() time.Time { return time.Now().Add(61 * time.Minute) }
	if got, _ = h.Providers(ctx, opAdmin, time.Hour); got[0].Calls != 0 || got[0].Live {
		t.Fatalf("an hour later: %+v", got)
	}
	if _, err := h.Providers(ctx, mOwner, time.Hour); !isKind(err, platform.KindForbidden) {
		t.Fatalf("merchant user: %v", err)
	}
}
