package reviewer

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// The test networks: TRON's USDT at 6 decimals and BSC's at 18.
var (
	trc20 = usdt.Network{Name: "TRC20", Addresses: []string{"TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf", "TNoSecondAddressForTheTestsXXXXXXX"},
		Contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", Decimals: 6, Confirmations: 30, Mode: usdt.ModeChain, ExchangeNetwork: "TRX"}
	bep20 = usdt.Network{Name: "BEP20", Addresses: []string{"0x8894e0a0c962cb723c1976a4421c95949be2d4e3"},
		Contract: "0x55d398326f99059ff775485246999027b3197955", Decimals: 18, Confirmations: 15, Mode: usdt.ModeChain, ExchangeNetwork: "BSC"}
)

// env is one test's Redis database, the fakes around the reviewer, and the
// orders it made.
type env struct {
	t      *testing.T
	rdb    *redis.Client
	orders *fakeOrders
	nets   *fakeNetworks
	be     *fakeBackends
}

func newEnv(t *testing.T) *env {
	t.Helper()
	rdb := testenv.Redis(t)
	return &env{t: t, rdb: rdb, orders: newFakeOrders(rdb),
		nets: &fakeNetworks{nets: map[string]usdt.Network{trc20.Name: trc20, bep20.Name: bep20}},
		be:   &fakeBackends{chains: map[string]*fakeChain{trc20.Name: newFakeChain(), bep20.Name: newFakeChain()}, exch: newFakeExchange()}}
}

func (e *env) chain(network string) *fakeChain { return e.be.chains[network] }

// testConfig is a reviewer on a fast clock.
func testConfig() Config {
	cfg := Defaults()
	cfg.Lease = 3 * time.Second
	cfg.Timeout = 500 * time.Millisecond
	cfg.PollInterval = 10 * time.Millisecond
	cfg.Batch = 4
	cfg.Backoff = []time.Duration{20 * time.Millisecond}
	cfg.WaitingInterval = 20 * time.Millisecond
	return cfg
}

// newOrder is a usdt_direct order created ten minutes ago whose payer
// submitted hash a minute ago, queued for review now.
func (e *env) newOrder(network, payable, hash string) *schema.Order {
	e.t.Helper()
	now := time.Now().UTC().Truncate(time.Millisecond)
	o := &schema.Order{
		ID: schema.NewOrderID(now.Add(-10*time.Minute), schema.RandomShard()), AppID: "app1", Amount: 12_00, Currency: "USD",
		Method: schema.MethodUSDTDirect, Status: schema.StatusReady, NextAction: schema.NextUSDTReview,
		PayableAmount: payable, Network: network, TxHash: hash,
		CreatedAt: now.Add(-10 * time.Minute), UpdatedAt: now.Add(-time.Minute), Version: 3,
	}
	e.queue(o)
	return o
}

// queue keeps o in the fake order store and puts it in its review queue,
// due now, as the submit script does.
func (e *env) queue(o *schema.Order) {
	e.t.Helper()
	e.orders.put(o)
	shard, _ := schema.ParseOrderID(o.ID)
	z := redis.Z{Score: float64(time.Now().UnixMilli()), Member: o.ID}
	if err := e.rdb.ZAdd(context.Background(), schema.USDTReviewsKey(shard), z).Err(); err != nil {
		e.t.Fatal(err)
	}
}

// running is a started reviewer and what it reports.
type running struct {
	*Reviewer
	reg  *prometheus.Registry
	logs *syncBuffer
}

// start runs a reviewer until the test ends; its log is shown only when the
// test fails.
func (e *env) start(cfg Config, waiting func(context.Context) (int, error)) *running {
	e.t.Helper()
	reg := prometheus.NewRegistry()
	logs := &syncBuffer{}
	r, err := New(cfg, Deps{Redis: e.rdb, Orders: e.orders, Networks: e.nets, Backends: e.be, Waiting: waiting},
		reg, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	e.t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				e.t.Errorf("Run: %v", err)
			}
		case <-time.After(callsPerReview*cfg.Timeout + 10*time.Second):
			e.t.Error("Run did not return after its context ended")
		}
		if e.t.Failed() {
			e.t.Logf("reviewer %s log:\n%s", r.ID(), logs.String())
		}
	})
	return &running{Reviewer: r, reg: reg, logs: logs}
}

// outcomes are the outcome calls that landed, in order, from any process.
func (e *env) outcomes() []landed {
	e.t.Helper()
	raw, err := e.rdb.LRange(context.Background(), outcomesKey, 0, -1).Result()
	if err != nil {
		e.t.Fatal(err)
	}
	out := make([]landed, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal([]byte(r), &out[i]); err != nil {
			e.t.Fatal(err)
		}
	}
	return out
}

// outcomesOf are the landed outcome calls for order id.
func (e *env) outcomesOf(id string) []landed {
	e.t.Helper()
	var out []landed
	for _, l := range e.outcomes() {
		if l.ID == id {
			out = append(out, l)
		}
	}
	return out
}

// decided waits for order id's first outcome and returns it.
func (e *env) decided(id string) landed {
	e.t.Helper()
	var got []landed
	testenv.Eventually(e.t, 10*time.Second, "an outcome for "+id, func() bool {
		got = e.outcomesOf(id)
		return len(got) > 0
	})
	return got[0]
}

// queued reports whether order id is in its review queue.
func (e *env) queued(id string) bool {
	e.t.Helper()
	shard, _ := schema.ParseOrderID(id)
	err := e.rdb.ZScore(context.Background(), schema.USDTReviewsKey(shard), id).Err()
	if err == redis.Nil {
		return false
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return true
}

// metricValue sums a metric's series whose labels include want.
func metricValue(t *testing.T, reg *prometheus.Registry, name string, want map[string]string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if labels[k] != v {
					continue series
				}
			}
			total += m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
		}
	}
	return total
}

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
