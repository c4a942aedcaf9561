package command

import (
	"context"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// maxLiveOrderBytes is the bound we hold Redis's memory per live order to:
// its hash, its clientOrderId key and its expiry index entry together.
const maxLiveOrderBytes = 400

// memoryOrders is how many orders the memory test creates: enough that the
// keyspace's and the indexes' own growth is spread as under load.
const memoryOrders = 20000

// liveOrderMemory is what Redis holds for the orders a test created.
type liveOrderMemory struct {
	perOrder          float64 // used_memory growth per create, less the event streams' growth
	hash, coid, index float64 // MEMORY USAGE: one order hash; the clientOrderIds hash and the expiry buckets, per entry
	hashEncoding      string
}

// TestRedisBytesPerLiveOrder creates orders as gwbench's createorder phases
// do (select, USD, a clientOrderId each, a description, a sandbox merchant
// with no callback, through the create use case and its batched script) and
// bounds what Redis holds per live order. used_memory is the
// server's: another test binary writing at the same time can only blur it,
// so the least of a few rounds is taken, each on a database of its own.
func TestRedisBytesPerLiveOrder(t *testing.T) {
	var best *liveOrderMemory
	for round := 0; round < 3; round++ {
		m := measureLiveOrders(t, memoryOrders)
		t.Logf("round %d: %.1f B per live order (used_memory less streams); hash %.0f B (%s), clientOrderId %.0f B a field, expiry index %.1f B per entry",
			round, m.perOrder, m.hash, m.hashEncoding, m.coid, m.index)
		if best == nil || m.perOrder < best.perOrder {
			best = m
		}
		if best.perOrder <= maxLiveOrderBytes {
			break
		}
	}
	if best.hashEncoding != "listpack" {
		t.Errorf("order hash encoding %s, want listpack", best.hashEncoding)
	}
	if best.perOrder > maxLiveOrderBytes {
		t.Errorf("Redis holds %.1f B per live order, want at most %d", best.perOrder, maxLiveOrderBytes)
	}
}

// measureLiveOrders creates n orders on a database of their own and prices
// them.
func measureLiveOrders(t *testing.T, n int) *liveOrderMemory {
	t.Helper()
	h := newRedisHarness(t)
	ctx := context.Background()
	acct, err := h.accounts.Create(ctx, merchant.NewAccount{Name: "bench-create", Sandbox: true})
	if err != nil {
		t.Fatal(err)
	}
	used0, streams0 := usedMemory(t, h.rdb), streamMemory(h.rdb)
	from := time.Now().Add(-time.Second)
	last := createBenchOrders(t, h, acct, n)
	to := time.Now().Add(time.Second)
	used1, streams1 := usedMemory(t, h.rdb), streamMemory(h.rdb)
	m := &liveOrderMemory{perOrder: float64(used1-used0-(streams1-streams0)) / float64(n)}
	shard, _ := schema.ParseOrderID(last.ID)
	key := schema.OrderKey(shard, last.ID)
	m.hash = float64(h.rdb.MemoryUsage(ctx, key, 0).Val())
	m.hashEncoding = h.rdb.ObjectEncoding(ctx, key).Val()
	m.coid = float64(h.rdb.MemoryUsage(ctx, schema.ClientOrdersKey(shard, acct.AppID), 0).Val()) /
		float64(h.rdb.HLen(ctx, schema.ClientOrdersKey(shard, acct.AppID)).Val())
	ttl := h.store.TTL(schema.MethodSelect)
	m.index = indexBytesPerEntry(h.rdb, from.Add(ttl), to.Add(ttl), n)
	return m
}

// createBenchOrders creates n orders of acct, from a few goroutines so that
// the store's lanes batch them as under load, and returns one of them.
func createBenchOrders(t *testing.T, h *harness, acct *merchant.Account, n int) *schema.Order {
	t.Helper()
	ip := netip.MustParseAddr("127.0.0.1")
	const workers = 8
	var wg sync.WaitGroup
	orders := make([]*schema.Order, workers)
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				p := signed(schema.Params{"action": "createorder", "amount": "100.00", "appid": acct.AppID, "clientip": "127.0.0.1",
					"currency": "USD", "paymentMethod": "select", "description": "bench order", "clientOrderId": "cmax-" + strconv.Itoa(i)}, acct.APIKey)
				o, replay, err := h.create.Create(context.Background(), p, ip, false)
				if err == nil && replay {
					err = errReplay
				}
				if err != nil {
					errs[w] = err
					return
				}
				orders[w] = o
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return orders[0]
}

var errReplay = &replayError{}

type replayError struct{}

func (*replayError) Error() string { return "a new clientOrderId was answered as a replay" }

// usedMemory is INFO's used_memory.
func usedMemory(t *testing.T, rdb *redis.Client) int64 {
	t.Helper()
	for _, l := range strings.Split(rdb.Info(context.Background(), "memory").Val(), "\r\n") {
		if v, ok := strings.CutPrefix(l, "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("INFO memory has no used_memory")
	return 0
}

// streamMemory is every shard's event stream's MEMORY USAGE.
func streamMemory(rdb *redis.Client) int64 {
	var n int64
	for _, s := range schema.AllShards() {
		n += rdb.MemoryUsage(context.Background(), schema.EventsKey(s), 0).Val()
	}
	return n
}

// indexBytesPerEntry is the MEMORY USAGE of the expiry index and of the
// expiry buckets of the seconds from..to over the n orders they hold.
func indexBytesPerEntry(rdb *redis.Client, from, to time.Time, n int) float64 {
	ctx := context.Background()
	var bytes int64
	for _, s := range schema.AllShards() {
		bytes += rdb.MemoryUsage(ctx, schema.ExpiryKey(s), 0).Val()
		for sec := from.Unix(); sec <= to.Unix()+1; sec++ {
			bytes += rdb.MemoryUsage(ctx, schema.ExpiryBucketKey(s, sec), 0).Val()
		}
	}
	return float64(bytes) / float64(n)
}
