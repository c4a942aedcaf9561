package command

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// The per-status counters (schema.StatusCountKey) the order scripts keep
// beside the order counters, on the real Redis: whatever the scripts do, and
// however they race, the counters equal the statuses the orders hold.

// statusCounts sums appid's status counters over every shard.
func (h *harness) statusCounts(appid string) map[schema.Status]int {
	h.t.Helper()
	out := map[schema.Status]int{}
	for _, s := range schema.AllShards() {
		m, err := h.rdb.HGetAll(context.Background(), schema.StatusCountKey(s, appid)).Result()
		if err != nil {
			h.t.Fatal(err)
		}
		for k, v := range m {
			st, _ := strconv.Atoi(k)
			n, err := strconv.Atoi(v)
			if err != nil {
				h.t.Fatalf("counter %s of shard %d: %q", k, s, v)
			}
			if n != 0 {
				out[schema.Status(st)] += n
			}
		}
	}
	return out
}

// heldStatuses counts the statuses the orders ids hold in their hashes.
func (h *harness) heldStatuses(ids []string) map[schema.Status]int {
	h.t.Helper()
	out := map[schema.Status]int{}
	for _, id := range ids {
		o, err := h.store.Get(context.Background(), id)
		if err != nil {
			h.t.Fatalf("read %s: %v", id, err)
		}
		out[o.Status]++
	}
	return out
}

func (h *harness) wantCounts(ids []string) {
	h.t.Helper()
	got, want := h.statusCounts(h.acct.AppID), h.heldStatuses(ids)
	if !maps.Equal(got, want) {
		h.t.Fatalf("status counters %v, the orders hold %v", got, want)
	}
}

// TestStatusCountersConcurrentMoves races every kind of move on the same
// orders: a move that loses the race must not touch the counters, one that
// wins moves exactly one count.
func TestStatusCountersConcurrentMoves(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	var ids []string
	for i := range 20 {
		o := h.storeOrder(fmt.Sprintf("C-%d", i), 1_00, "CNY", false)
		if _, created, err := h.store.Create(ctx, o); err != nil || !created {
			t.Fatalf("create: %v %v", created, err)
		}
		ids = append(ids, o.ID)
	}
	targets := []schema.Status{schema.StatusReady, schema.StatusPaid, schema.StatusFailed, schema.StatusCancelled, schema.StatusReady}
	var wg sync.WaitGroup
	for _, id := range ids {
		for _, to := range targets {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := h.store.Transition(ctx, id, to, time.Now()); err != nil {
					t.Errorf("move %s to %s: %v", id, to, err)
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := h.store.Expire(ctx, id, time.Now().Add(time.Hour)); err != nil {
				t.Errorf("expire %s: %v", id, err)
			}
		}()
	}
	wg.Wait()
	h.wantCounts(ids)
}

// TestStatusCountersRandomWorkload drives creates, balance payments, moves
// and expiries in a random order (seeded, printed) and checks the counters
// against the orders after every step.
func TestStatusCountersRandomWorkload(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	h := newRedisHarness(t)
	ctx := context.Background()
	if _, err := journaltest.Credit(ctx, h.rdb, h.acct.AppID, "USD", 10_00); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for step := range 200 {
		switch k := rng.IntN(10); {
		case k < 3 || len(ids) == 0:
			o := h.storeOrder(fmt.Sprintf("W-%d", rng.IntN(30)), 1_00, "CNY", false)
			if _, created, err := h.store.Create(ctx, o); err != nil {
				t.Fatal(err)
			} else if created {
				ids = append(ids, o.ID)
			}
		case k == 3:
			o := h.storeOrder("", 1_00, "USD", true)
			if _, err := h.store.CreatePaidFromBalance(ctx, o); err == nil {
				ids = append(ids, o.ID)
			}
		case k == 4:
			if _, _, err := h.store.Expire(ctx, ids[rng.IntN(len(ids))], time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		default:
			to := schema.Status(rng.IntN(int(schema.StatusCancelled) + 1))
			if _, err := h.store.Transition(ctx, ids[rng.IntN(len(ids))], to, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		if step%20 == 19 {
			h.wantCounts(ids)
		}
	}
	h.wantCounts(ids)
}

// TestStatusCountersFollowUSDTReview: an approval moves the order's count to
// paid once; a rejection (the order stays payable) and a repeated approval
// move nothing.
func TestStatusCountersFollowUSDTReview(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	approved, rejected := hash64("a1"), hash64("b2")
	ids := []string{h.underReview(approved), h.underReview(rejected)}
	h.wantCounts(ids)
	if _, err := h.uc.Review.Reject(ctx, ids[1], rejected, decision("reviewer-1")); err != nil {
		t.Fatal(err)
	}
	h.wantCounts(ids)
	for range 2 {
		if _, err := h.uc.Review.Approve(ctx, ids[0], approved, usdt.Decision{By: "reviewer-2"}); err != nil {
			t.Fatal(err)
		}
		h.wantCounts(ids)
	}
	if got := h.statusCounts(h.acct.AppID)[schema.StatusPaid]; got != 1 {
		t.Fatalf("%d paid after one approval", got)
	}
}
