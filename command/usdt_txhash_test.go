package command

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// hash64 is a transaction hash of 64 hex digits made of seed.
func hash64(seed string) string { return strings.Repeat(seed, 64/len(seed)) }

func TestSubmitTxHash(t *testing.T) {
	tests := []struct {
		name    string
		network string // chosen first; "" chooses none
		hash    string
		want    string // stored hash when ok
		kind    platform.Kind
	}{
		{"TRC20", "TRC20", hash64("1f"), hash64("1f"), ""},
		{"TRC20 upper case normalised", "TRC20", " " + hash64("AB") + "\n", hash64("ab"), ""},
		{"TRC20 with 0x", "TRC20", "0x" + hash64("1f"), "", platform.KindInvalidParameter},
		{"TRC20 too short", "TRC20", hash64("1f")[:63], "", platform.KindInvalidParameter},
		{"TRC20 not hex", "TRC20", hash64("1g"), "", platform.KindInvalidParameter},
		{"BEP20", "BEP20", "0x" + hash64("2e"), "0x" + hash64("2e"), ""},
		{"BEP20 upper case normalised", "BEP20", "0X" + hash64("2E"), "0x" + hash64("2e"), ""},
		{"BEP20 without 0x", "BEP20", hash64("2e"), "", platform.KindInvalidParameter},
		{"BEP20 an address, not a hash", "BEP20", "0x" + strings.Repeat("2e", 20), "", platform.KindInvalidParameter},
		{"ERC20", "ERC20", "0x" + hash64("3d"), "0x" + hash64("3d"), ""},
		{"ERC20 too long", "ERC20", "0x" + hash64("3d") + "00", "", platform.KindInvalidParameter},
		{"empty", "TRC20", "  ", "", platform.KindInvalidParameter},
		{"no network chosen", "", hash64("1f"), "", platform.KindInvalidParameter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRedisHarness(t)
			h.uc.Create.offer.sandbox = []schema.USDTNetwork{usdtNet("TRC20", tronOf(3)),
				usdtNet("BEP20", "0x"+strings.Repeat("11", 20)), usdtNet("ERC20", "0x"+strings.Repeat("22", 20))}
			ctx := context.Background()
			id := h.usdtOrder(true)
			if tt.network != "" {
				h.mustChoose(id, tt.network)
			}
			before, _ := h.store.Get(ctx, id)
			o, err := h.uc.USDT.SubmitTxHash(ctx, id, tt.hash)
			if kindOf(err) != tt.kind || (err != nil) != (tt.kind != "") {
				t.Fatalf("err = %v, want kind %q", err, tt.kind)
			}
			after, _ := h.store.Get(ctx, id)
			if tt.kind != "" {
				if *after != *before {
					t.Fatalf("a refused hash changed the order: %+v", after)
				}
				if tt.kind == platform.KindInvalidParameter && tt.network == "" && msgOf(err) != "choose a network first" {
					t.Fatalf("message %q", err)
				}
				return
			}
			if o.TxHash != tt.want || after.TxHash != tt.want || after.NextAction != schema.NextUSDTReview ||
				after.Status != schema.StatusReady || after.Version != before.Version+1 {
				t.Fatalf("order after submit: %+v", after)
			}
			if ev := h.lastEvent(id); ev.Type != schema.EventChanged || ev.Order.TxHash != tt.want || ev.Order.NextAction != schema.NextUSDTReview {
				t.Fatalf("last event %s %+v", ev.Type, ev.Order)
			}
			if holder := h.rdb.Get(ctx, schema.USDTTxKey(tt.network, tt.want)).Val(); holder != id {
				t.Fatalf("hash reserved for %q, want %s", holder, id)
			}
		})
	}
}

// TestTxHashUsedOnce: a hash pays one order. Another order submitting it is
// refused and left as it was; the order holding it may repeat it (any
// case) with nothing written; it may not replace it.
func TestTxHashUsedOnce(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	first, second := h.usdtOrder(true), h.usdtOrder(true)
	h.mustChoose(first, "TRC20")
	h.mustChoose(second, "TRC20")
	if _, err := h.uc.USDT.SubmitTxHash(ctx, first, hash64("c4")); err != nil {
		t.Fatal(err)
	}
	held, _ := h.store.Get(ctx, first)
	tests := []struct {
		name string
		id   string
		hash string
		kind platform.Kind
	}{
		{"another order", second, hash64("c4"), platform.KindConflict},
		{"another order, upper case", second, hash64("C4"), platform.KindConflict},
		{"same order again", first, hash64("c4"), ""},
		{"same order, upper case", first, hash64("C4"), ""},
		{"same order, another hash", first, hash64("d5"), platform.KindConflict},
		{"same order, malformed", first, "0x" + hash64("c4"), platform.KindInvalidParameter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := h.store.Get(ctx, tt.id)
			o, err := h.uc.USDT.SubmitTxHash(ctx, tt.id, tt.hash)
			if kindOf(err) != tt.kind || (err != nil) != (tt.kind != "") {
				t.Fatalf("err = %v, want kind %q", err, tt.kind)
			}
			if tt.id == second && msgOf(err) != "this transaction hash was already submitted" {
				t.Fatalf("message %q", err)
			}
			if after, _ := h.store.Get(ctx, tt.id); *after != *before {
				t.Fatalf("order changed: %+v", after)
			}
			if err == nil && *o != *held {
				t.Fatalf("repeat answered %+v", o)
			}
		})
	}
	if holder := h.rdb.Get(ctx, schema.USDTTxKey("TRC20", hash64("c4"))).Val(); holder != first {
		t.Fatalf("hash now reserved for %q", holder)
	}
	if n := h.rdb.Exists(ctx, schema.USDTTxKey("TRC20", hash64("d5"))).Val(); n != 0 {
		t.Fatal("a refused hash stayed reserved")
	}
}

// TestConcurrentTxSubmits: submits racing on one order, each with its own
// hash, have one winner; the losers are refused and give their hashes back.
// The same hash racing with itself succeeds for all, recorded once. Every
// submit starts from the order as read before any of them wrote (left to
// the scheduler, the first often finished before the others read), so
// each one reaches the reservation and the guarded script.
func TestConcurrentTxSubmits(t *testing.T) {
	tests := []struct {
		name     string
		distinct bool
	}{
		{"different hashes", true},
		{"one hash", false},
	}
	const n = 8
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRedisHarness(t)
			ctx := context.Background()
			id := h.usdtOrder(true)
			h.mustChoose(id, "TRC20")
			hashes := make([]string, n)
			for i := range hashes {
				hashes[i] = hash64("e0")
				if tt.distinct {
					hashes[i] = hash64(fmt.Sprintf("%02x", i))
				}
			}
			read, err := h.store.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				stale := *read
				wg.Go(func() { _, errs[i] = h.uc.USDT.submitTx(ctx, &stale, hashes[i]) })
			}
			wg.Wait()
			o, _ := h.store.Get(ctx, id)
			won := 0
			for i, err := range errs {
				reserved := h.rdb.Get(ctx, schema.USDTTxKey("TRC20", hashes[i])).Val()
				switch {
				case err == nil:
					won++
					if o.TxHash != hashes[i] || reserved != id {
						t.Fatalf("submit %d succeeded, but the order holds %q and %s is reserved for %q", i, o.TxHash, hashes[i], reserved)
					}
				case kindOf(err) != platform.KindConflict:
					t.Fatalf("submit %d: %v", i, err)
				case reserved != "":
					t.Fatalf("losing submit %d kept %s reserved", i, hashes[i])
				}
			}
			if want := map[bool]int{true: 1, false: n}[tt.distinct]; won != want {
				t.Fatalf("%d submits succeeded, want %d", won, want)
			}
			if o.Version != 3 { // created, network, hash
				t.Fatalf("version %d: the hash was recorded more than once", o.Version)
			}
		})
	}
}

// TestExpiryLeavesOrdersUnderReview: past the order TTL the sweep cancels
// unpaid orders, usdt_direct ones awaiting payment included, but not one
// whose payer submitted a hash; that one expires when the review window
// ends unreviewed.
func TestExpiryLeavesOrdersUnderReview(t *testing.T) {
	h := newRedisHarness(t)
	h.uc.USDT.window = time.Hour
	ctx := context.Background()
	review, waiting := h.usdtOrder(true), h.usdtOrder(true)
	other := h.createOK(h.baseParams())["paymentId"].(string)
	h.mustChoose(review, "BEP20")
	h.mustChoose(waiting, "BEP20")
	if _, err := h.uc.USDT.SubmitTxHash(ctx, review, "0x"+hash64("77")); err != nil {
		t.Fatal(err)
	}
	sweep := h.sweeper(t)
	status := func(id string) schema.Status { return h.status(t, id) }
	sweep(2 * time.Minute) // past the harness's 1-minute TTL
	if status(waiting) != schema.StatusCancelled || status(other) != schema.StatusCancelled {
		t.Fatalf("unpaid orders not expired: %s, %s", status(waiting), status(other))
	}
	if o, _ := h.store.Get(ctx, review); o.Status != schema.StatusReady || o.NextAction != schema.NextUSDTReview {
		t.Fatalf("order under review became %s (%s)", o.Status, o.NextAction)
	}
	if !h.snapshot(&schema.Order{ID: review}).indexed {
		t.Fatal("the order under review left the expiry index: it would never expire")
	}
	sweep(time.Hour + time.Minute)
	if status(review) != schema.StatusCancelled {
		t.Fatalf("order under review past its window: %s", status(review))
	}
}

// TestExpireChecksTheIndex: the sweep reads due orders, then cancels them
// one by one; an order whose expiry moved later in between (a hash
// submitted) is not cancelled and stays indexed.
func TestExpireChecksTheIndex(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	id := h.usdtOrder(true)
	shard, _ := schema.ParseOrderID(id)
	later := time.Now().Add(time.Hour)
	h.rdb.ZAdd(ctx, schema.ExpiryKey(shard), redis.Z{Score: float64(later.UnixMilli()), Member: id})
	moved, due, err := h.store.Expire(ctx, id, time.Now().Add(2*time.Minute))
	if err != nil || moved || due {
		t.Fatalf("expire before the moved expiry: moved %v due %v, %v", moved, due, err)
	}
	if o, _ := h.store.Get(ctx, id); o.Status != schema.StatusReady || o.Version != 1 {
		t.Fatalf("order %s v%d", o.Status, o.Version)
	}
	if moved, due, err = h.store.Expire(ctx, id, later); err != nil || !moved || !due {
		t.Fatalf("expire when due: moved %v due %v, %v", moved, due, err)
	}
}
