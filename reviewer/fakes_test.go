package reviewer

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// outcomesKey lists every outcome call that landed, from any process (the
// crash test's helper included), as JSON of landed.
const outcomesKey = "reviewer-test:outcomes"

// landed is one outcome call that changed an order.
type landed struct {
	Outcome string        `json:"outcome"` // approve, reject, escalate
	ID      string        `json:"id"`
	Hash    string        `json:"hash"`
	D       usdt.Decision `json:"d"`
}

// fakeOrders keeps orders in memory and changes them as the command side's
// outcome scripts will: only an order still under review with that hash,
// and removing it from the real queue key in the same step.
type fakeOrders struct {
	moves       []string // MoveUSDT calls, "from->payable"
	rdb         *redis.Client
	mu          sync.Mutex
	orders      map[string]*schema.Order
	reschedules map[string]int
	refused     int
}

func newFakeOrders(rdb *redis.Client) *fakeOrders {
	return &fakeOrders{rdb: rdb, orders: map[string]*schema.Order{}, reschedules: map[string]int{}}
}

func (f *fakeOrders) put(o *schema.Order) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := *o
	f.orders[o.ID] = &c
}

func (f *fakeOrders) Order(_ context.Context, id string) (*schema.Order, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o, ok := f.orders[id]
	if !ok {
		return nil, platform.Errorf(platform.KindNotFound, "order not found")
	}
	c := *o
	return &c, nil
}

func (f *fakeOrders) ApproveUSDT(ctx context.Context, id, hash string, d usdt.Decision) (*schema.Order, error) {
	return f.decide(ctx, "approve", id, hash, d, func(o *schema.Order) {
		o.Status, o.NextAction, o.Review, o.CompletedAt = schema.StatusPaid, "", usdt.OutcomeApproved, d.At
	})
}

func (f *fakeOrders) RejectUSDT(ctx context.Context, id, hash string, d usdt.Decision) (*schema.Order, error) {
	return f.decide(ctx, "reject", id, hash, d, func(o *schema.Order) {
		o.NextAction, o.Review, o.ReviewReason = schema.NextUSDTDirectPay, usdt.OutcomeRejected, d.Reason
	})
}

func (f *fakeOrders) EscalateUSDT(ctx context.Context, id, hash string, d usdt.Decision) (*schema.Order, error) {
	return f.decide(ctx, "escalate", id, hash, d, func(o *schema.Order) {
		o.Review, o.ReviewReason = usdt.OutcomeWaiting, d.Reason
	})
}

func (f *fakeOrders) decide(ctx context.Context, outcome, id, hash string, d usdt.Decision, change func(*schema.Order)) (*schema.Order, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o, ok := f.orders[id]
	if !ok {
		return nil, platform.Errorf(platform.KindNotFound, "order not found")
	}
	if !underReview(o) || o.TxHash != hash {
		f.refused++
		return nil, platform.Errorf(platform.KindConflict, "order is not under review")
	}
	raw, err := json.Marshal(landed{Outcome: outcome, ID: id, Hash: hash, D: d})
	if err != nil {
		return nil, err
	}
	shard, _ := schema.ParseOrderID(id)
	_, err = f.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ZRem(ctx, schema.USDTReviewsKey(shard), id)
		p.RPush(ctx, outcomesKey, raw)
		return nil
	})
	if err != nil {
		return nil, err
	}
	change(o)
	o.UpdatedAt, o.Version = d.At, o.Version+1
	c := *o
	return &c, nil
}

func (f *fakeOrders) RescheduleUSDT(ctx context.Context, id string, due time.Time) error {
	shard, _ := schema.ParseOrderID(id)
	err := f.rdb.ZAddXX(ctx, schema.USDTReviewsKey(shard), redis.Z{Score: float64(due.UnixMilli()), Member: id}).Err()
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.reschedules[id]++
	f.mu.Unlock()
	return nil
}

func (f *fakeOrders) ProgressUSDT(_ context.Context, id, hash string, p schema.USDTProgress) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	o, ok := f.orders[id]
	if !ok {
		return platform.Errorf(platform.KindNotFound, "order not found")
	}
	if !underReview(o) || o.TxHash != hash {
		return platform.Errorf(platform.KindConflict, "order is not under review")
	}
	o.ReviewProgress = p
	return nil
}

func (f *fakeOrders) MoveUSDT(_ context.Context, from, _, payable string, _ usdt.Decision) (*schema.Order, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.moves = append(f.moves, from+"->"+payable)
	return nil, platform.Errorf(platform.KindNotFound, "no order has payable amount %s", payable)
}

func (f *fakeOrders) rescheduled(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reschedules[id]
}

// fakeChain answers from transactions the test sets; it counts the calls
// and the reviews of each hash in flight at once.
type fakeChain struct {
	mu      sync.Mutex
	txs     map[string]usdt.Tx
	err     error
	hold    time.Duration            // each call takes this long
	block   chan struct{}            // when set, calls wait for it, ignoring their context (a hung process)
	next    func(n int, tx *usdt.Tx) // when set, changes the answer of the n-th call for a hash
	calls   map[string]int
	active  map[string]int
	maxBusy int
	onEnter func(hash string) // when set, told of each call as it starts
}

func newFakeChain() *fakeChain {
	return &fakeChain{txs: map[string]usdt.Tx{}, calls: map[string]int{}, active: map[string]int{}}
}

func (c *fakeChain) set(tx usdt.Tx, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if tx.Hash != "" {
		c.txs[tx.Hash] = tx
	}
	c.err = err
}

func (c *fakeChain) Tx(_ context.Context, hash string) (usdt.Tx, error) {
	c.mu.Lock()
	c.calls[hash]++
	n := c.calls[hash]
	c.active[hash]++
	c.maxBusy = max(c.maxBusy, c.active[hash])
	tx, ok := c.txs[hash]
	err, hold, block, next, onEnter := c.err, c.hold, c.block, c.next, c.onEnter
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.active[hash]--
		c.mu.Unlock()
	}()
	if onEnter != nil {
		onEnter(hash)
	}
	if block != nil {
		<-block
	}
	time.Sleep(hold)
	switch {
	case err != nil:
		return usdt.Tx{}, err
	case !ok:
		return usdt.Tx{}, usdt.ErrNotFound
	}
	if next != nil {
		next(n, &tx)
	}
	return tx, nil
}

func (c *fakeChain) busiest() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.maxBusy
}

// fakeExchange answers from deposits and payments the test sets.
type fakeExchange struct {
	mu       sync.Mutex
	deposits map[string]usdt.Deposit // by hash: a row on another network is found too
	payments map[string]usdt.Payment // by order id
	err      error
}

func newFakeExchange() *fakeExchange {
	return &fakeExchange{deposits: map[string]usdt.Deposit{}, payments: map[string]usdt.Payment{}}
}

func (x *fakeExchange) Deposit(_ context.Context, _, txID string) (usdt.Deposit, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.err != nil {
		return usdt.Deposit{}, x.err
	}
	d, ok := x.deposits[txID]
	if !ok {
		return usdt.Deposit{}, usdt.ErrNotFound
	}
	return d, nil
}

func (x *fakeExchange) Payment(_ context.Context, orderID string) (usdt.Payment, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.err != nil {
		return usdt.Payment{}, x.err
	}
	p, ok := x.payments[orderID]
	if !ok {
		return usdt.Payment{}, usdt.ErrNotFound
	}
	return p, nil
}

func (x *fakeExchange) putDeposit(d usdt.Deposit) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.deposits[d.TxID] = d
}

func (x *fakeExchange) putPayment(p usdt.Payment) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.payments[p.OrderID] = p
}

// fakeNetworks is the USDT configuration as data.
type fakeNetworks struct {
	mu   sync.Mutex
	nets map[string]usdt.Network
}

func (n *fakeNetworks) Lookup(name string, _ bool) (usdt.Network, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	v, ok := n.nets[name]
	return v, ok
}

func (n *fakeNetworks) setMode(name string, m usdt.Mode) {
	n.mu.Lock()
	defer n.mu.Unlock()
	v := n.nets[name]
	v.Mode = m
	n.nets[name] = v
}

// fakeBackends serves one chain per network and one exchange, for live and
// sandbox orders alike.
type fakeBackends struct {
	chains map[string]*fakeChain
	exch   *fakeExchange
}

func (b *fakeBackends) Chain(_ bool, network string) (usdt.Chain, bool) {
	c, ok := b.chains[network]
	return c, ok
}

func (b *fakeBackends) Exchange(bool) (usdt.Exchange, bool) { return b.exch, b.exch != nil }

var errBackendDown = errors.New("connection refused")
