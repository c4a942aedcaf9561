package chaos

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/paygate/gateway/schema"
)

// Rates is the steady load offered, per second: high enough that
// every kill catches hundreds of requests in flight, which 30 creates/s
// (0.2 % of the create capacity) did not. What a machine answers may be
// less; the activity floors (Floors) judge that.
type Rates struct {
	Creates, Pays, SelfPays, Transfers, Queries float64
}

// DefaultRates is the load of every scenario: 1,000 creates/s with pays,
// balance payments and queries in the proportions of the first suite
// (30 : 8 : 4 : 2 : 10). `chaos --creates ...` (CHAOS_FLAGS) changes them.
var DefaultRates = Rates{Creates: 1000, Pays: 267, SelfPays: 133, Transfers: 67, Queries: 333}

// Validate checks the rates are usable: creates are what every other kind
// of request works on.
func (r Rates) Validate() error {
	if r.Creates <= 0 || r.Pays < 0 || r.SelfPays < 0 || r.Transfers < 0 || r.Queries < 0 {
		return fmt.Errorf("rates: creates must be positive and none negative: %+v", r)
	}
	return nil
}

// DefaultClientTimeout is how long the load waits for one answer. It is
// longer than the longest wait the gateway imposes by design, the 10 s a
// listing may queue behind its merchant's own listings at the ClickHouse
// fair gate (GATEWAY_CLICKHOUSE_READ_WAIT) before it is refused: the load's
// listings all come from one merchant and wait there, 2.5 to 3.8 s on a
// busy 2-core machine, so at 5 s a slower moment (right after a bench)
// failed a few listings in the baseline that the gateway answered 200
// later, to a client that had hung up. A request without an answer after
// this long is a hang, and a failure.
const DefaultClientTimeout = 15 * time.Second

// workersPerRequestRate is how many requests per second one worker of the
// load is given: workers send one request at a time, so a kind of request
// gets rate/workersPerRequestRate of them (at least its base count), and a
// slow answer during a fault holds up only its own worker.
const workersPerRequestRate = 10

// Load drives the gateways and remembers every create and its answer.
type Load struct {
	c      *Cluster
	client *http.Client

	mu      sync.Mutex
	creates []Create
	payable []string  // answered Shop orders the sandbox can pay
	paid    []string  // orders the sandbox answered paid, in order
	failed  time.Time // when the last request failed
	coids   []string  // recent clientOrderIds, for repeats
	ops     map[string]*OpCount
	seq     int
	payers  map[int]*payer

	scenario  string         // the scenario the load runs for, on each Failure
	reasons   map[string]int // this scenario's failures by "op reason"
	failures  *failureLog    // every failure, one JSON line each (nil: none)
	breakPays bool           // the planted failure: every sandbox pay sent with a wrong key

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// OpCount is how one kind of request fared, with its first error.
type OpCount struct {
	OK, Failed int
	FirstErr   string
	// Slowest is the longest an answered request of this scenario took:
	// how near the answers came to the client's time-out.
	Slowest time.Duration
}

// methods are the Shop's creates, each with a currency it takes.
var methods = []struct{ method, currency string }{
	{"wallet_a", "CNY"}, {"wallet_b", "CNY"}, {"cryptohost", "USD"}, {"select", "USD"},
}

// errNothingToDo is a request not sent (no order to pay yet): neither a
// success nor a failure, so it counts as neither.
var errNothingToDo = errors.New("nothing to do")

// NewLoad prepares the load; Run starts it. Failures are written to fl
// (nil: counted only).
func NewLoad(c *Cluster, fl *failureLog) *Load {
	// Keep a connection per worker: the default of two idle connections
	// per host would open (and leave in TIME_WAIT) one per request.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 4096, 2048
	return &Load{c: c, ops: map[string]*OpCount{}, failures: fl, breakPays: c.cfg.PlantFailedPays,
		client: &http.Client{Timeout: c.cfg.ClientTimeout, Transport: tr,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Run starts every kind of request at its rate until Stop, for scenario.
func (l *Load) Run(scenario string, r Rates) {
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	l.mu.Lock()
	for _, c := range l.ops {
		c.FirstErr, c.Slowest = "", 0 // this run's, not the whole suite's
	}
	l.scenario, l.reasons = scenario, map[string]int{}
	l.mu.Unlock()
	l.every(ctx, "create", r.Creates, 4, l.create)
	l.every(ctx, "sandbox pay", r.Pays, 2, l.pay)
	l.every(ctx, "balance create", r.SelfPays, 3, l.selfPay) // three racing on one balance
	l.every(ctx, "balance transfer", r.Transfers, 2, l.transfer)
	l.every(ctx, "query", r.Queries, 2, l.query)
}

// Stop ends the load and waits for requests in flight.
func (l *Load) Stop() {
	l.cancel()
	l.wg.Wait()
	_ = l.failures.flush() // an error is kept and reported by Close
}

// Reasons is the current scenario's failures counted by "op reason".
func (l *Load) Reasons() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]int, len(l.reasons))
	for k, v := range l.reasons {
		out[k] = v
	}
	return out
}

// every runs fn from workers goroutines, rate times a second in all.
func (l *Load) every(ctx context.Context, name string, rate float64, workers int, fn func(ctx context.Context, w int) error) {
	if rate <= 0 {
		return
	}
	workers = max(workers, int(math.Ceil(rate/workersPerRequestRate)))
	period := time.Duration(float64(time.Second) * float64(workers) / rate)
	for w := range workers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			t := time.NewTicker(period)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
				// Not ctx: Stop lets the request in flight finish, so
				// that no create is dropped by the suite itself.
				sent := time.Now()
				err := fn(context.WithoutCancel(ctx), w)
				if !errors.Is(err, errNothingToDo) {
					l.count(name, sent, err)
				}
			}
		}()
	}
}

// count records one request's outcome; a failure also with its reason.
func (l *Load) count(op string, sent time.Time, err error) {
	var f Failure
	took := time.Since(sent)
	if err != nil {
		f = Failure{At: time.Now().UTC(), Op: op, TookMS: took.Milliseconds(), Detail: err.Error()}
		f.Reason, f.Status = reasonOf(err)
	}
	l.mu.Lock()
	c := l.ops[op]
	if c == nil {
		c = &OpCount{}
		l.ops[op] = c
	}
	if err == nil {
		c.OK++
		c.Slowest = max(c.Slowest, took)
		l.mu.Unlock()
		return
	}
	l.failed = f.At
	c.Failed++
	if c.FirstErr == "" {
		c.FirstErr = err.Error()
	}
	f.Scenario = l.scenario
	if l.reasons != nil {
		l.reasons[op+" "+f.Reason]++
	}
	l.mu.Unlock()
	l.failures.write(f)
}

// base is the address of a command+query gateway, alternating.
func (l *Load) base(w int) string { return "http://" + l.c.Procs[w%2].Addr }

// create is the Shop's mixed create: a method in turn, half with a
// clientOrderId, a fifth of those a repeat of a recent one.
func (l *Load) create(ctx context.Context, w int) error {
	l.mu.Lock()
	l.seq++
	n := l.seq
	coid := ""
	switch {
	case n%2 == 0 && n%5 == 0 && len(l.coids) > 0:
		coid = l.coids[rand.IntN(len(l.coids))]
	case n%2 == 0:
		coid = fmt.Sprintf("chaos-%d", n)
		l.coids = append(l.coids, coid)
		if len(l.coids) > 200 {
			l.coids = l.coids[1:]
		}
	}
	l.mu.Unlock()
	m := methods[n%len(methods)]
	p := schema.Params{"paymentMethod": m.method, "currency": m.currency, "amount": amount()}
	if coid != "" {
		p["clientOrderId"] = coid
	}
	id, fresh, err := l.createOrder(ctx, w, l.c.M.Shop, p)
	if err == nil && fresh && m.method != "select" {
		l.mu.Lock()
		l.payable = append(l.payable, id)
		l.mu.Unlock()
	}
	return err
}

// amount is a random amount from 1.00 to 99.99.
func amount() string { return fmt.Sprintf("%d.%02d", 1+rand.IntN(99), rand.IntN(100)) }

// pay pays a Shop order through the sandbox, as the browser tests do.
func (l *Load) pay(ctx context.Context, w int) error {
	l.mu.Lock()
	if len(l.payable) == 0 {
		l.mu.Unlock()
		return errNothingToDo
	}
	i := rand.IntN(len(l.payable))
	id := l.payable[i]
	l.payable[i] = l.payable[len(l.payable)-1]
	l.payable = l.payable[:len(l.payable)-1]
	l.mu.Unlock()
	a := l.c.M.Shop
	key := a.QueryKey
	if l.breakPays {
		key = "planted-wrong-key"
	}
	form := url.Values{"appid": {a.AppID}, "key": {key}}.Encode()
	status, ans, err := l.post(ctx, l.base(w)+"/sandbox/orders/"+id+"/pay", "application/x-www-form-urlencoded", []byte(form))
	if err == nil && status != http.StatusOK {
		err = &statusError{step: "sandbox pay", status: status, body: ans.raw}
	}
	if err == nil {
		l.mu.Lock()
		l.paid = append(l.paid, id)
		l.mu.Unlock()
	}
	return err
}

// LastFailure is when the last request failed (zero: none yet).
func (l *Load) LastFailure() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failed
}

// Paid is a copy of the orders paid so far.
func (l *Load) Paid() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.paid...)
}

// selfPay creates an order Self pays at once from its own balance; three
// workers race on that one balance.
func (l *Load) selfPay(ctx context.Context, w int) error {
	_, _, err := l.createOrder(ctx, w, l.c.M.Self, schema.Params{"paymentMethod": "balance", "currency": "USD", "amount": amount()})
	return err
}

// query reads a recent order by id, or a merchant's first listing page.
func (l *Load) query(ctx context.Context, w int) error {
	a := l.c.M.Shop
	q := url.Values{"appid": {a.AppID}, "key": {a.QueryKey}, "action": {"orders"}, "limit": {"20"}}
	l.mu.Lock()
	if n := len(l.creates); n > 0 && rand.IntN(2) == 0 {
		if c := l.creates[rand.IntN(n)]; c.PaymentID != "" && c.AppID == a.AppID {
			q.Set("action", "order")
			q.Set("paymentId", c.PaymentID)
			q.Del("limit")
		}
	}
	l.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.base(w)+"/api/order?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	status, ans, err := l.do(req)
	if err == nil && status != http.StatusOK {
		err = &statusError{step: "query", status: status, body: ans.raw}
	}
	return err
}

// Creates is a copy of every create so far.
func (l *Load) Creates() []Create {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Create(nil), l.creates...)
}

// Ops is a copy of the request counts so far.
func (l *Load) Ops() map[string]OpCount {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]OpCount{}
	for k, v := range l.ops {
		out[k] = *v
	}
	return out
}

// opsLine is the counts as one line for the report.
func opsLine(ops map[string]OpCount) string {
	var b strings.Builder
	for _, k := range []string{"create", "sandbox pay", "balance create", "balance transfer", "query"} {
		c := ops[k]
		fmt.Fprintf(&b, "%s %d/%d, ", k, c.OK, c.OK+c.Failed)
	}
	return strings.TrimSuffix(b.String(), ", ")
}
