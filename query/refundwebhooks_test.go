package query

import (
	"encoding/json"
	"io"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// TestWebhooksQueryRefunds: action=webhooks lists the order's refunds,
// oldest first, each with its own delivery and attempts read on the
// order's shard (a refund id names none); a refund without a delivery yet
// shows null and an empty log; a refund delivery of another order on the
// same shard is not shown; without refunds, or without a refund reader,
// refunds is an empty list.
func TestWebhooksQueryRefunds(t *testing.T) {
	ctx, rdb, accounts, log := newRedisFixture(t)
	a, _ := accounts.Create(ctx, merchant.NewAccount{Name: "a"})
	dir := merchant.NewDirectory(accounts, log, time.Millisecond)
	at := time.Date(2026, 11, 21, 22, 33, 20, 0, time.UTC)
	const shard = 5
	paid := schema.Order{ID: schema.NewOrderID(at, shard), AppID: a.AppID, Amount: 50_00, Currency: "USD",
		Method: schema.MethodWalletA, Status: schema.StatusPaid, NotifyURL: "https://shop.test/h", CreatedAt: at,
		CompletedAt: at, Refunded: 10_00}
	neighbour := paid
	neighbour.ID = schema.NewOrderID(at, shard)
	for _, o := range []schema.Order{paid, neighbour} {
		if err := rdb.HSet(ctx, schema.OrderKey(shard, o.ID), o.Fields()).Err(); err != nil {
			t.Fatal(err)
		}
	}
	refund := func(o schema.Order, id string, created int64, st schema.RefundStatus) {
		raw, _ := json.Marshal(schema.Refund{ID: id, OrderID: o.ID, Amount: 10_00, Currency: "USD", Status: st,
			CreatedMs: at.UnixMilli() + created, UpdatedMs: at.UnixMilli() + created})
		rdb.HSet(ctx, schema.RefundsKey(shard, o.ID), id, raw)
	}
	refund(paid, "rf_LATER", 2000, schema.RefundPending)
	refund(paid, "rf_FIRST", 1000, schema.RefundSucceeded)
	refund(neighbour, "rf_THEIRS", 500, schema.RefundSucceeded)
	attempt, _ := json.Marshal(schema.WebhookAttempt{At: "2026-11-21T22:33:22Z", Attempt: 1, Status: 200, Body: "success", LatencyMs: 9, Success: true})
	for _, id := range []string{"rf_FIRST", "rf_THEIRS"} {
		rdb.HSet(ctx, schema.WebhookKey(shard, id), "st", "delivered", "n", "1", "appid", a.AppID)
		rdb.RPush(ctx, schema.WebhookLogKey(shard, id), attempt)
	}
	live := NewRedisOrders(rdb)

	type refundHook struct {
		id, state string // state "" when the delivery is null
		attempts  int
	}
	tests := []struct {
		name  string
		src   Sources
		order string
		want  []refundHook
	}{
		{"order with refunds", Sources{Live: live, Webhooks: live, Refunds: live}, paid.ID,
			[]refundHook{{"rf_FIRST", "delivered", 1}, {"rf_LATER", "", 0}}},
		{"another order on the shard", Sources{Live: live, Webhooks: live, Refunds: live}, neighbour.ID,
			[]refundHook{{"rf_THEIRS", "delivered", 1}}},
		{"no refund reader", Sources{Live: live, Webhooks: live}, paid.ID, []refundHook{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := serveOrders(t, dir, tt.src, log)
			q := url.Values{"appid": {a.AppID}, "key": {a.QueryKey}, "action": {"webhooks"}, "paymentId": {tt.order}}
			res, err := app.Test(httptest.NewRequest("GET", "/api/order?"+q.Encode(), nil))
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(res.Body)
			var body struct {
				Data struct {
					Refunds []RefundWebhooks `json:"refunds"`
				} `json:"data"`
			}
			if err := json.Unmarshal(raw, &body); err != nil || res.StatusCode != 200 || body.Data.Refunds == nil {
				t.Fatalf("%d %s (refunds must be a list, not null)", res.StatusCode, raw)
			}
			got := []refundHook{}
			for _, r := range body.Data.Refunds {
				h := refundHook{id: r.RefundID, attempts: len(r.Attempts)}
				if r.Attempts == nil {
					t.Errorf("refund %s: attempts null, want a list", r.RefundID)
				}
				if r.Delivery != nil {
					h.state = r.Delivery.State
					if r.Delivery.EventID != "evt_refund_"+r.RefundID {
						t.Errorf("refund %s: event id %q", r.RefundID, r.Delivery.EventID)
					}
				}
				got = append(got, h)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("refunds %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("refund %d: %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}
