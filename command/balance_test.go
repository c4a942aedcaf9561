package command

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/schema"
)

func TestBalancePayment(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	if _, err := journaltest.Credit(ctx, h.rdb, h.acct.AppID, "USD", 150_00); err != nil {
		t.Fatal(err)
	}
	p := h.baseParams()
	p["paymentMethod"], p["currency"] = "balance", "USD"
	d := h.createOK(p)
	if d["status"] != 2.0 || d["paidWithBalance"] != true || d["redirectUrl"] != nil || d["qrImageUrl"] != nil {
		t.Fatalf("balance create: %v", d)
	}
	id := d["paymentId"].(string)
	if shard, _ := schema.ParseOrderID(id); shard != schema.HomeShard(h.acct.AppID) {
		t.Fatal("a balance order must live on the merchant's home shard, beside the balance")
	}
	o, err := h.store.Get(ctx, id)
	if err != nil || o.Status != schema.StatusPaid || o.CompletedAt.IsZero() || !o.PaidWithBalance {
		t.Fatalf("stored order %+v, %v", o, err)
	}
	if ttl := h.rdb.TTL(ctx, schema.OrderKey(schema.HomeShard(h.acct.AppID), id)).Val(); ttl <= 0 {
		t.Fatalf("a paid order must expire after the retention, ttl %v", ttl)
	}
	wantBalance(t, h, "USD", 50_00)
	msgs, _ := h.rdb.XRange(ctx, schema.EventsKey(schema.HomeShard(h.acct.AppID)), "-", "+").Result()
	if len(msgs) != 1 || msgs[0].Values["type"] != "paid" || msgs[0].Values["v"] != "1" {
		t.Fatalf("events: %v", msgs)
	}
	ledger := journalEntries(t, h.rdb, h.acct.AppID)
	if len(ledger) != 2 || ledger[1].Kind != "balance_order" || ledger[1].Ref != id || ledger[1].Key != "balance_order:"+id ||
		len(ledger[1].Postings) != 2 || ledger[1].Postings[0].Amount != -100_00 || ledger[1].Postings[1].Account != "platform:spent" {
		t.Fatalf("journal: %+v", ledger)
	}

	// Not enough left: 422, and nothing changes.
	r := h.post(signed(p, h.acct.APIKey))
	if r.Status != 422 || r.Body.Error != "insufficient_balance" {
		t.Fatalf("overdraft: %s", r.Raw)
	}
	wantBalance(t, h, "USD", 50_00)
	if n := h.rdb.XLen(ctx, schema.EventsKey(schema.HomeShard(h.acct.AppID))).Val(); n != 1 {
		t.Fatalf("a refused balance payment emitted an event (%d events)", n)
	}
	if n := len(journalEntries(t, h.rdb, h.acct.AppID)); n != 2 {
		t.Fatalf("a refused balance payment wrote the journal (%d entries)", n)
	}
	if n := orderCount(t, h, h.acct.AppID); n != 1 {
		t.Fatalf("order counter %d after one paid and one refused balance order", n)
	}
	// Another currency's balance is its own.
	p["currency"], p["amount"] = "CNY", "1"
	if r := h.post(signed(p, h.acct.APIKey)); r.Status != 422 || r.Body.Error != "insufficient_balance" {
		t.Fatalf("CNY from a USD balance: %s", r.Raw)
	}
}

func wantBalance(t *testing.T, h *harness, cur string, want schema.Amount) {
	t.Helper()
	bal, err := h.accounts.Balances(context.Background(), h.acct.AppID)
	if err != nil || bal[cur] != want {
		t.Fatalf("balance %s = %v (%v), want %v", cur, bal[cur], err, want)
	}
}

// TestBalanceNeverOverdraws spends a 10.00 balance with 40 concurrent 1.00
// payments on the real Redis: exactly 10 succeed.
func TestBalanceNeverOverdraws(t *testing.T) {
	h := newHarness(t, testenv.Redis(t))
	if _, err := journaltest.Credit(context.Background(), h.rdb, h.acct.AppID, "USD", 10_00); err != nil {
		t.Fatal(err)
	}
	p := h.baseParams()
	p["paymentMethod"], p["currency"], p["amount"] = "balance", "USD", "1"
	body := signed(p, h.acct.APIKey)
	var mu sync.Mutex
	status := map[int]int{}
	// The payments report failures over errs: only this goroutine may end
	// the test.
	errs := make(chan error, 40)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := h.tryPost(body)
			if err != nil {
				errs <- fmt.Errorf("payment %d: %w", i, err)
				return
			}
			mu.Lock()
			status[r.Status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	if status[200] != 10 || status[422] != 30 {
		t.Fatalf("statuses %v, want 10 paid and 30 refused", status)
	}
	wantBalance(t, h, "USD", 0)
}

// TestBalanceClientOrderIDPaidOnce: a balance clientOrderId pays once for
// ever, even when its creates race: every answer is the one paid order.
// Without a clientOrderId each create still pays (SPEC.md's POST flow).
func TestBalanceClientOrderIDPaidOnce(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	if _, err := journaltest.Credit(ctx, h.rdb, h.acct.AppID, "USD", 100_00); err != nil {
		t.Fatal(err)
	}
	p := h.baseParams()
	p["paymentMethod"], p["currency"], p["amount"], p["clientOrderId"] = "balance", "USD", "7", "shop-42"
	p = signed(p, h.acct.APIKey)
	const n = 8
	ids := make(chan string, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := h.post(p)
			var d struct {
				PaymentID string `json:"paymentId"`
				Status    int    `json:"status"`
			}
			if r.Status != 200 || json.Unmarshal(r.Body.Data, &d) != nil || d.Status != 2 {
				t.Errorf("create: %s", r.Raw)
			}
			ids <- d.PaymentID
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		seen[id] = true
	}
	if len(seen) != 1 {
		t.Fatalf("%d orders for one balance clientOrderId: %v", len(seen), seen)
	}
	wantBalance(t, h, "USD", 93_00)

	bare := h.baseParams()
	bare["paymentMethod"], bare["currency"], bare["amount"] = "balance", "USD", "7"
	h.createOK(bare)
	h.createOK(bare)
	wantBalance(t, h, "USD", 79_00)
}
