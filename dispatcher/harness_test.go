package dispatcher

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// env is one test's Redis database with a merchant in it.
type env struct {
	t        testing.TB
	rdb      *redis.Client
	accounts *merchant.Store
	acct     *merchant.Account
}

func newEnv(t testing.TB) *env {
	t.Helper()
	rdb := testenv.Redis(t)
	accounts := merchant.NewStore(rdb)
	acct, err := accounts.Create(context.Background(), merchant.NewAccount{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, rdb: rdb, accounts: accounts, acct: acct}
}

// testConfig is a dispatcher on a fast clock: short schedule, polls and
// leases, loopback receivers allowed.
func testConfig() Config {
	cfg := Defaults()
	cfg.Schedule = []time.Duration{50 * time.Millisecond, 100 * time.Millisecond}
	cfg.Timeout = 2 * time.Second
	cfg.AllowPrivate = true
	cfg.Poll = 20 * time.Millisecond
	cfg.Block = 100 * time.Millisecond
	cfg.LeaseMargin = 300 * time.Millisecond
	cfg.ClaimIdle = 500 * time.Millisecond
	return cfg
}

// running is a started dispatcher and what it reports.
type running struct {
	*Dispatcher
	reg *prometheus.Registry
}

// start runs a dispatcher until the test ends; its log is shown only when
// the test fails.
func (e *env) start(cfg Config) *running {
	e.t.Helper()
	reg := prometheus.NewRegistry()
	logs := &syncBuffer{}
	d, err := New(cfg, e.rdb, AccountKeys(e.accounts.Get, e.accounts.EnsureWebhookSecret), reg, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	e.t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				e.t.Errorf("Run: %v", err)
			}
		case <-time.After(cfg.Timeout + 10*time.Second):
			e.t.Error("Run did not return after its context ended")
		}
		if e.t.Failed() {
			e.t.Logf("dispatcher %s log:\n%s", cfg.Consumer, logs.String())
		}
	})
	return &running{Dispatcher: d, reg: reg}
}

// paidOrder is an order just paid, with notify_url set to notify.
func (e *env) paidOrder(notify string) *schema.Order {
	now := time.Now().UTC().Truncate(time.Millisecond)
	return &schema.Order{
		ID: schema.NewOrderID(now.Add(-time.Minute), schema.RandomShard()), AppID: e.acct.AppID,
		Amount: 12_34, Currency: "USD", Method: schema.MethodWalletA, Status: schema.StatusPaid,
		NotifyURL: notify, CreatedAt: now.Add(-time.Minute), UpdatedAt: now, CompletedAt: now, Version: 2,
	}
}

// publish stores the order and appends its event as command's scripts do:
// the order hash with the retention of a finished order, and the stream entry
// of the event.
func (e *env) publish(o *schema.Order, typ schema.EventType) {
	e.t.Helper()
	shard, _ := schema.ParseOrderID(o.ID)
	f := o.Fields()
	ctx := context.Background()
	_, err := e.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, schema.OrderKey(shard, o.ID), f)
		p.Expire(ctx, schema.OrderKey(shard, o.ID), time.Hour)
		p.XAdd(ctx, &redis.XAddArgs{Stream: schema.EventsKey(shard), Values: schema.EventFields(typ, o.UpdatedAt, o)})
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// pay publishes a paid order to notify and returns it.
func (e *env) pay(notify string) *schema.Order {
	e.t.Helper()
	o := e.paidOrder(notify)
	e.publish(o, schema.EventPaid)
	return o
}

// state is the delivery's state, "" when it has none.
func (e *env) state(d *running, id string) string {
	e.t.Helper()
	st, err := d.State(context.Background(), id)
	if errors.Is(err, ErrNoDelivery) {
		return ""
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return st.State
}

// received is one request a receiver got.
type received struct {
	at          time.Time
	form        url.Values
	contentType string
	header      http.Header
	body        string
}

// receiver is a merchant endpoint on loopback; respond decides each answer
// (n counts from 1 across all requests to this receiver).
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	reqs    []received
	respond func(n int, w http.ResponseWriter, r *http.Request)
}

func newReceiver(t *testing.T, respond func(n int, w http.ResponseWriter, r *http.Request)) *receiver {
	t.Helper()
	rc := &receiver{respond: respond}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(raw))
		r.PostForm, r.Form = form, form // what respond funcs read, as ParseForm would leave them
		rc.mu.Lock()
		rc.reqs = append(rc.reqs, received{at: time.Now(), form: form, contentType: r.Header.Get("Content-Type"),
			header: r.Header.Clone(), body: string(raw)})
		n := len(rc.reqs)
		rc.mu.Unlock()
		rc.respond(n, w, r)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// answer is a respond func that always writes status and body.
func answer(status int, body string) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.reqs)
}

func (rc *receiver) requests() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.reqs...)
}

// metricValue reads a counter or gauge without labels from reg.
func metricValue(t testing.TB, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		total := 0.0
		for _, m := range mf.GetMetric() {
			total += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
		return total
	}
	return 0
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

// operatorResend is the CLI's resend of the order's paid webhook (refundID
// "") or of a refund's, through the one resend, then wakes the dispatcher
// as a running one is at its next round.
func (r *running) operatorResend(ctx context.Context, paymentID, refundID string) error {
	cli := access.CLI()
	if err := r.webhooks().Resend(ctx, ResendAsk{PaymentID: paymentID, RefundID: refundID, By: &cli}); err != nil {
		return err
	}
	r.poke()
	return nil
}
