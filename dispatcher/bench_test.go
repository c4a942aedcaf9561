package dispatcher

import (
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
)

// TestMeasureDeliveries measures, with the default configuration against
// fast loopback receivers: deliveries per second for a backlog of paid
// orders, and the paid-to-delivered delay at a steady rate. It only runs
// with GATEWAY_WEBHOOK_BENCH=1 (sizes: GATEWAY_WEBHOOK_BENCH_N, _RATE, _HOSTS, _PER_HOST):
//
//	GATEWAY_WEBHOOK_BENCH=1 scripts/testenv.sh go test -count=1 -run TestMeasureDeliveries -v ./dispatcher
func TestMeasureDeliveries(t *testing.T) {
	if os.Getenv("GATEWAY_WEBHOOK_BENCH") != "1" {
		t.Skip("set GATEWAY_WEBHOOK_BENCH=1 to measure")
	}
	n, rate, hosts := benchInt("GATEWAY_WEBHOOK_BENCH_N", 5000), benchInt("GATEWAY_WEBHOOK_BENCH_RATE", 200), benchInt("GATEWAY_WEBHOOK_BENCH_HOSTS", 1)
	e := newEnv(t)
	var mu sync.Mutex
	arrived := map[string]time.Time{}
	rcs := make([]*receiver, hosts)
	for i := range rcs {
		rcs[i] = newReceiver(t, func(_ int, w http.ResponseWriter, r *http.Request) {
			now := time.Now()
			mu.Lock()
			arrived[r.PostForm.Get("paymentId")] = now
			mu.Unlock()
			_, _ = w.Write([]byte("success"))
		})
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(arrived) }
	cfg := Defaults()
	cfg.AllowPrivate = true
	cfg.PerHost = benchInt("GATEWAY_WEBHOOK_BENCH_PER_HOST", cfg.PerHost)

	// Throughput: a backlog of n paid orders, then a dispatcher starts.
	for i := range n {
		e.pay(rcs[i%hosts].URL)
	}
	start := time.Now()
	d := e.start(cfg)
	testenv.Eventually(t, 5*time.Minute, "backlog delivered", func() bool { return count() == n })
	took := time.Since(start)
	t.Logf("backlog: %d webhooks to %d receiver host(s) in %s: %.0f deliveries/s (concurrency %d, per host %d); mean HTTP attempt %s",
		n, hosts, took.Round(time.Millisecond), float64(n)/took.Seconds(), cfg.Concurrency, cfg.PerHost, meanAttempt(t, d))

	// Latency: orders paid at a steady rate while the dispatcher runs.
	m := rate * 10
	paid := make(map[string]time.Time, m)
	tick := time.NewTicker(time.Second / time.Duration(rate))
	for i := range m {
		<-tick.C
		o := e.paidOrder(rcs[i%hosts].URL)
		paid[o.ID] = time.Now()
		e.publish(o, "paid")
	}
	tick.Stop()
	testenv.Eventually(t, time.Minute, "paced orders delivered", func() bool { return count() == n+m })
	mu.Lock()
	delays := make([]time.Duration, 0, m)
	for id, at := range paid {
		delays = append(delays, arrived[id].Sub(at))
	}
	mu.Unlock()
	slices.Sort(delays)
	q := func(p float64) time.Duration {
		return delays[int(p*float64(len(delays)-1))].Round(10 * time.Microsecond)
	}
	t.Logf("steady %d/s: paid-to-delivered p50 %s, p90 %s, p99 %s, max %s over %d webhooks",
		rate, q(0.5), q(0.9), q(0.99), delays[len(delays)-1].Round(10*time.Microsecond), m)
}

func benchInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// meanAttempt is the mean duration of an HTTP attempt so far.
func meanAttempt(t testing.TB, d *running) time.Duration {
	t.Helper()
	mfs, err := d.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "gateway_webhook_attempt_seconds" {
			h := mf.GetMetric()[0].GetHistogram()
			return time.Duration(h.GetSampleSum() / float64(h.GetSampleCount()) * float64(time.Second)).Round(time.Microsecond)
		}
	}
	return 0
}
