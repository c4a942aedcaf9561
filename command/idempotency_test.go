package command

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sync"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/schema"
)

func TestClientOrderIDIdempotency(t *testing.T) {
	h := newRedisHarness(t)
	p := h.baseParams()
	p["clientOrderId"] = "A-77"
	first := h.createOK(p)
	id := first["paymentId"].(string)

	p["amount"] = "999" // different fields: the live order still wins (DESIGN.md)
	again := h.createOK(p)
	if again["paymentId"] != id || again["idempotent"] != true || again["amount"] != "100.00" {
		t.Fatalf("replay of a ready order: %v", again)
	}
	other := h.baseParams()
	other["clientOrderId"] = "B-1"
	if d := h.createOK(other); d["paymentId"] == id {
		t.Fatal("another clientOrderId got the same order")
	}
	sandboxMove(t, h, id, "pay")
	after := h.createOK(p)
	if after["paymentId"] == id || after["idempotent"] != false {
		t.Fatalf("a paid order must free its clientOrderId: %v", after)
	}
	id2 := after["paymentId"].(string)
	sandboxMove(t, h, id2, "fail")
	if d := h.createOK(p); d["paymentId"] == id2 || d["idempotent"] != false {
		t.Fatalf("a failed order must free its clientOrderId: %v", d)
	}
	if n := orderCount(t, h, h.acct.AppID); n != 4 {
		t.Fatalf("order counter %d, want 4 (replays do not count)", n)
	}
	// The same clientOrderId of another merchant is another order.
	lp := h.baseParams()
	lp["appid"], lp["paymentMethod"], lp["clientOrderId"] = h.live.AppID, "select", "A-77"
	r := h.post(signed(lp, h.live.APIKey))
	if r.Status != 200 || r.Data(t)["idempotent"] != false {
		t.Fatalf("other merchant: %s", r.Raw)
	}
}

func TestBalanceCreateReplaysLiveOrder(t *testing.T) {
	h := newRedisHarness(t)
	if _, err := journaltest.Credit(context.Background(), h.rdb, h.acct.AppID, "USD", 10_000); err != nil {
		t.Fatal(err)
	}
	p := h.baseParams()
	p["clientOrderId"], p["currency"] = "C-1", "USD"
	live := h.createOK(p)
	p["paymentMethod"] = "balance"
	d := h.createOK(p)
	if d["paymentId"] != live["paymentId"] || d["idempotent"] != true {
		t.Fatalf("balance create with a live clientOrderId: %v", d)
	}
	bal, _ := h.accounts.Balances(context.Background(), h.acct.AppID)
	if bal["USD"] != 10_000 {
		t.Fatalf("a replay debited the balance: %v", bal)
	}
}

// TestClientOrderIDConcurrency fires 50 identical creates at once against
// the real Redis: one order, its events (created, and ready once its
// provider answered; a deferred usdt_direct order is stored ready), 49
// replays, the provider asked once.
func TestClientOrderIDConcurrency(t *testing.T) {
	h := newHarness(t, testenv.Redis(t))
	for _, method := range []string{"wallet_a", "usdt_direct"} {
		t.Run(method, func(t *testing.T) {
			p := h.baseParams()
			p["clientOrderId"], p["paymentMethod"] = "race-"+method, method
			body := signed(p, h.acct.APIKey)
			const n = 50
			ids := make([]string, n)
			replays := make([]bool, n)
			// The creates report failures over errs: only this goroutine
			// may end the test.
			errs := make(chan error, n)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					r, err := h.tryPost(body)
					if err != nil {
						errs <- fmt.Errorf("create %d: %w", i, err)
						return
					}
					if r.Status != 200 {
						errs <- fmt.Errorf("create %d: %d %s", i, r.Status, r.Raw)
						return
					}
					var d struct {
						PaymentID  string `json:"paymentId"`
						Idempotent bool   `json:"idempotent"`
					}
					if err := json.Unmarshal(r.Body.Data, &d); err != nil || d.PaymentID == "" {
						errs <- fmt.Errorf("create %d: data of %s: %v", i, r.Raw, err)
						return
					}
					ids[i], replays[i] = d.PaymentID, d.Idempotent
				}()
			}
			close(start)
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if t.Failed() {
				t.FailNow()
			}
			fresh := 0
			for i := range n {
				if ids[i] != ids[0] {
					t.Fatalf("two orders for one clientOrderId: %s and %s", ids[0], ids[i])
				}
				if !replays[i] {
					fresh++
				}
			}
			if fresh != 1 {
				t.Fatalf("%d creates report a new order, want 1", fresh)
			}
			shard := schema.ShardFor(h.acct.AppID, p["clientOrderId"])
			want := 2
			if method == "usdt_direct" {
				want = 1
			}
			if got := countEvents(t, h, shard, ids[0]); got != want {
				t.Fatalf("%d events for the order, want %d", got, want)
			}
			if method == "usdt_direct" {
				keys, _ := h.rdb.Keys(context.Background(), "gw:usdt:amount:*").Result()
				held := 0
				for _, k := range keys {
					if v, _ := h.rdb.Get(context.Background(), k).Result(); v != "" {
						held++
					}
				}
				if held != 1 {
					t.Fatalf("%d usdt amounts reserved after 50 identical creates, want 1", held)
				}
			}
		})
	}
}

func sandboxMove(t *testing.T, h *harness, id, action string) *response {
	t.Helper()
	q := url.Values{"appid": {h.acct.AppID}, "key": {h.acct.QueryKey}}
	r := h.do(newPost("/sandbox/orders/"+id+"/"+action+"?"+q.Encode(), ""))
	if r.Status != 200 {
		t.Fatalf("sandbox %s %s: %s", action, id, r.Raw)
	}
	return r
}

// orderCount sums the merchant's per-shard order counters.
func orderCount(t *testing.T, h *harness, appid string) int64 {
	t.Helper()
	var n int64
	for _, s := range schema.AllShards() {
		v, _ := h.rdb.Get(context.Background(), schema.OrderCountKey(s, appid)).Int64()
		n += v
	}
	return n
}
