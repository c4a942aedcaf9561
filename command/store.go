package command

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

var (
	//go:embed scripts/create.lua
	createLua string
	//go:embed scripts/pay_balance.lua
	payBalanceLua string
	//go:embed scripts/transition.lua
	transitionLua string
)

// Store changes orders in Redis. Each method is one script that changes the
// order and appends its event together (DESIGN.md): no change without its
// event, no event without its change.
type Store struct {
	rdb        redis.UniversalClient
	ttl        time.Duration
	ttls       map[schema.Method]time.Duration
	retention  time.Duration
	create     *redis.Script
	batch      *platform.Batcher
	reads      *platform.Batcher
	payBalance *redis.Script
	transition *redis.Script
	transferScripts
	// journal posts the money the command side moves: balance payments,
	// their refunds, provider refunds' debits.
	journal *journal.Journal
}

// Creates share pipelines, createLanes in flight: at a few thousand creates
// a second each Redis turn then runs and fsyncs many creates, and the
// gateway makes a system call per batch. The lanes bound the tail: a create
// that finds them all busy waits for one, so after a long fsync it waits for
// one more. Quick runs at half load: p99 9.9-11.5 ms with 4 lanes, 6.9-9.2
// with 8, 8.0-9.2 with 16; 2 lanes raised the p50 too; the throughput did
// not move from 4 lanes up.
const createLanes = 8

// The order reads of the payer pages (the status every open page polls,
// the page itself) share pipelines of their own, readLanes in flight, as
// the query side's do: a read has no fsync to wait for, and behind the
// creates' lanes it would wait for theirs. Batched, Redis and the gateway
// make a system call per batch, not per read (the figures are in
// BENCHMARKS.md, "Payer pages").
const readLanes = 2

// NewStore prepares the scripts: ttl is how long an unpaid order stays
// payable, retention how long a finished order stays in Redis.
func NewStore(rdb redis.UniversalClient, ttl, retention time.Duration) *Store {
	return &Store{
		rdb: rdb, ttl: ttl, retention: retention,
		create:          redis.NewScript(createLua),
		batch:           platform.NewBatcher(rdb, platform.BatcherConfig{Lanes: createLanes}),
		reads:           platform.NewBatcher(rdb, platform.BatcherConfig{Lanes: readLanes}),
		payBalance:      redis.NewScript(journal.Library() + payBalanceLua),
		transition:      redis.NewScript(schema.OrderLua() + transitionLua),
		transferScripts: newTransferScripts(),
		journal:         defaultJournal(rdb),
	}
}

// defaultJournal is the journal of a deployment that configures none: its
// defaults are valid, so New cannot fail on them.
func defaultJournal(rdb redis.UniversalClient) *journal.Journal {
	j, err := journal.New(journal.Config{}, rdb, nil, nil)
	if err != nil {
		panic(err)
	}
	return j
}

// WithJournal makes s post through j (its configured memory and metrics).
func (s *Store) WithJournal(j *journal.Journal) *Store {
	s.journal = j
	return s
}

// Journal is the journal s posts to.
func (s *Store) Journal() *journal.Journal { return s.journal }

// WithMethodTTLs sets the methods whose unpaid orders stay payable longer or
// shorter than the default (a crypto payment takes confirmations).
func (s *Store) WithMethodTTLs(ttls map[schema.Method]time.Duration) *Store {
	s.ttls = ttls
	return s
}

// TTL is how long an unpaid order of method m stays payable.
func (s *Store) TTL(m schema.Method) time.Duration {
	if d, ok := s.ttls[m]; ok {
		return d
	}
	return s.ttl
}

// ErrInsufficientBalance is a balance payment the balance does not cover.
var ErrInsufficientBalance = errors.New("insufficient balance")

// PaidBeforeError is a balance create whose clientOrderId a balance order
// of the merchant paid already: OrderID.
type PaidBeforeError struct{ OrderID string }

func (e *PaidBeforeError) Error() string {
	return "clientOrderId was paid from balance by order " + e.OrderID
}

// ErrOrderNotFound is the cause of every error about an order Redis does
// not hold. The store never returns it bare: orderNotFound wraps it in the
// KindNotFound domain error, so a use case just passes the error on (the
// ErrorHandler's table answers 404) and only the few that mean something
// else by a missing order test errors.Is.
var ErrOrderNotFound = errors.New("order not found")

// orderNotFound is the one translation of a missing order to what the
// merchant sees.
func orderNotFound(id string) error {
	return &platform.Error{Kind: platform.KindNotFound, Msg: "order " + id + " not found", Err: ErrOrderNotFound}
}

// Create stores a new order and its created event. When the order has a
// clientOrderId held by a live order, nothing is written and the live
// order's id is returned with created=false.
func (s *Store) Create(ctx context.Context, o *schema.Order) (id string, created bool, err error) {
	shard, _ := schema.ParseOrderID(o.ID)
	expires := schema.ExpiryBucketSecond(o.CreatedAt.Add(s.TTL(o.Method)).UnixMilli())
	keys := []string{schema.OrderKey(shard, o.ID), schema.EventsKey(shard), schema.OrderCountKey(shard, o.AppID),
		schema.ExpiryBucketKey(shard, expires), schema.StatusCountKey(shard, o.AppID)}
	coid, packed := "", ""
	if o.ClientOrderID != "" {
		keys = append(keys, schema.ClientOrdersKey(shard, o.AppID), schema.ClientOrderKey(shard, o.AppID, o.ClientOrderID))
		coid, packed = o.ClientOrderID, schema.PackOrderID(o.ID)
	}
	// The status as Fields writes it: the script counts it without reading
	// the hash back. The fields follow, appended straight as arguments.
	args := make([]any, 0, 7+2*40)
	args = append(args, schema.OrderKeyPrefix(shard), o.ID, string(schema.EventCreated), o.CreatedAt.UnixMilli(), int(o.Status),
		coid, packed)
	args = o.AppendFieldArgs(args)
	res, err := s.batch.Script(ctx, s.create, keys, args...).Slice()
	if err != nil {
		return "", false, fmt.Errorf("create order %s: %w", o.ID, err)
	}
	flag, _ := res[0].(int64)
	id, _ = res[1].(string)
	return id, flag == 1, nil
}

// CreatePaidFromBalance stores the order paid from its merchant's
// available balance: the journal transaction balance_order:<id>, the order
// and its paid event in one script, all or nothing. A clientOrderId that a
// balance order paid before pays nothing again: the error is a
// *PaidBeforeError naming that order. A balance that falls short is
// ErrInsufficientBalance with the available balance there was.
func (s *Store) CreatePaidFromBalance(ctx context.Context, o *schema.Order) (schema.Amount, error) {
	shard, _ := schema.ParseOrderID(o.ID)
	tx, err := journal.BalanceOrderTx(o)
	if err != nil {
		return 0, err
	}
	jkeys, jargs, err := s.journal.ScriptArgs(tx)
	if err != nil {
		return 0, fmt.Errorf("pay order %s from balance: %w", o.ID, err)
	}
	keys := append(jkeys, schema.OrderKey(shard, o.ID), schema.EventsKey(shard),
		schema.OrderCountKey(shard, o.AppID), schema.StatusCountKey(shard, o.AppID))
	if o.ClientOrderID != "" {
		keys = append(keys, schema.BalanceClientOrderKey(o.AppID, o.ClientOrderID))
	}
	fields := o.Fields()
	args := make([]any, 0, len(jargs)+3+len(fields))
	args = append(append(args, jargs...), o.CreatedAt.UnixMilli(), o.ID, int64(s.retention/time.Second))
	for _, f := range fields {
		args = append(args, f)
	}
	res, err := s.payBalance.Run(ctx, s.rdb, keys, args...).Slice()
	if err != nil {
		return 0, fmt.Errorf("pay order %s from balance: %w", o.ID, err)
	}
	code, _ := res[0].(int64)
	switch code {
	case 0:
		bal, _ := res[2].(int64)
		return schema.Amount(bal), ErrInsufficientBalance
	case 5:
		before, _ := res[2].(string)
		return 0, &PaidBeforeError{OrderID: before}
	case 1:
		return 0, nil
	}
	return 0, fmt.Errorf("pay order %s from balance: journal answered %v", o.ID, res)
}

// Transition moves an order to status to, if DESIGN.md's table allows it
// from where the order is. A move that does not apply (a repeat, or from a
// final status) changes nothing, emits nothing and reports moved=false.
// Transitions share the creates' pipelines: every create with a provider
// makes one (pending to ready), and alone it cost a round trip of its own
// (cryptohost creates 2.3-2.9k/s alone, 3.0-3.1k/s pipelined, quick A/B).
func (s *Store) Transition(ctx context.Context, id string, to schema.Status, at time.Time, extra ...string) (moved bool, err error) {
	res, err := s.move(ctx, id, to, at, "", extra)
	return res == 1, err
}

// Expire cancels order id if the shard's expiry index says it is due by
// at. The sweep reads the due orders before it moves them; an order whose
// expiry moved later meanwhile (a usdt_direct order put under review) is
// left alone and reports due=false, and must stay indexed.
func (s *Store) Expire(ctx context.Context, id string, at time.Time) (moved, due bool, err error) {
	res, err := s.move(ctx, id, schema.StatusCancelled, at, strconv.FormatInt(at.UnixMilli(), 10), expiredField)
	return res == 1, res != 2, err
}

// expiredField marks an order cancelled by its expiry (Order.Expired), in
// the same step as the move, so its cancelled event says so.
var expiredField = []string{schema.FExpired, "1"}

// ExpireBucketed cancels order id, listed in an expiry bucket that is due
// by at, unless the expiry index took the order over (its expiry moved) or
// it waits for an administrator; paid, failed or gone, it is left alone.
func (s *Store) ExpireBucketed(ctx context.Context, id string, at time.Time) (moved bool, err error) {
	res, err := s.move(ctx, id, schema.StatusCancelled, at, "b", expiredField)
	return res == 1, err
}

// move runs transition.lua and returns its verdict: 1 moved, 0 the move
// does not apply, 2 not due by dueBy (ms, "b" for a due expiry bucket, or
// "" for any time).
func (s *Store) move(ctx context.Context, id string, to schema.Status, at time.Time, dueBy string, extra []string) (int64, error) {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return 0, orderNotFound(id)
	}
	from := make([]byte, 0, 5)
	for st := schema.StatusPending; st <= schema.StatusCancelled; st++ {
		if st.CanMoveTo(to) {
			from = strconv.AppendInt(from, int64(st), 10)
		}
	}
	keep := int64(0)
	if to.Final() {
		keep = int64(s.retention / time.Second)
	}
	args := []any{int(to), string(from), string(schema.EventFor(to)), at.UnixMilli(), keep,
		schema.ClientOrderKeyPrefix(shard), dueBy, schema.StatusCountKeyPrefix(shard),
		schema.ClientOrdersKeyPrefix(shard), schema.PackOrderID(id)}
	for _, e := range extra {
		args = append(args, e)
	}
	keys := []string{schema.OrderKey(shard, id), schema.EventsKey(shard), schema.ExpiryKey(shard), schema.OrderHistoryKey(shard, id)}
	res, err := s.batch.Script(ctx, s.transition, keys, args...).Int64Slice()
	if err != nil {
		return 0, fmt.Errorf("move order %s to %s: %w", id, to, err)
	}
	if res[0] == -1 {
		return 0, orderNotFound(id)
	}
	return res[0], nil
}

// Get reads an order; a missing one is orderNotFound.
func (s *Store) Get(ctx context.Context, id string) (*schema.Order, error) {
	shard, ok := schema.ParseOrderID(id)
	if !ok {
		return nil, orderNotFound(id)
	}
	h, err := platform.Batched(ctx, s.reads, func(ctx context.Context, p redis.Pipeliner) *redis.MapStringStringCmd {
		return p.HGetAll(ctx, schema.OrderKey(shard, id))
	}).Result()
	if err != nil {
		return nil, fmt.Errorf("read order %s: %w", id, err)
	}
	if len(h) == 0 {
		return nil, orderNotFound(id)
	}
	o, err := schema.OrderFromHash(id, h)
	if err != nil {
		return nil, err
	}
	return &o, nil
}

// LiveByClientOrder finds the live order holding (appid, clientOrderId), for
// the balance path, whose order lives on the merchant's home shard instead.
func (s *Store) LiveByClientOrder(ctx context.Context, appid, clientOrderID string) (*schema.Order, error) {
	shard := schema.ShardFor(appid, clientOrderID)
	id, err := s.rdb.HGet(ctx, schema.ClientOrdersKey(shard, appid), clientOrderID).Result()
	if errors.Is(err, redis.Nil) {
		// An order created before the clientOrderIds hash holds a key.
		id, err = s.rdb.Get(ctx, schema.ClientOrderKey(shard, appid, clientOrderID)).Result()
	}
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read clientOrderId %s: %w", clientOrderID, err)
	}
	id = schema.UnpackOrderID(id)
	o, err := s.Get(ctx, id)
	if errors.Is(err, ErrOrderNotFound) || (err == nil && !o.Status.Live()) {
		return nil, nil
	}
	return o, err
}
