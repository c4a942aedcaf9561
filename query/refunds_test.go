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

// TestOrderQueryRefunds: action=order shows a paid order's refunded
// amount and its refunds, oldest first, as the refund scripts store them.
func TestOrderQueryRefunds(t *testing.T) {
	ctx, rdb, accounts, log := newRedisFixture(t)
	a, _ := accounts.Create(ctx, merchant.NewAccount{Name: "a", Sandbox: true})
	dir := merchant.NewDirectory(accounts, log, time.Millisecond)
	at := time.Date(2026, 11, 21, 22, 33, 20, 0, time.UTC)
	o := schema.Order{ID: schema.NewOrderID(at, 3), AppID: a.AppID, Amount: 100_00, Currency: "CNY",
		Method: schema.MethodWalletA, Status: schema.StatusPaid, CreatedAt: at, UpdatedAt: at, CompletedAt: at,
		Refunded: 30_00, RefundReserved: 30_00, Version: 5}
	rs := []schema.Refund{
		{ID: "rf_B", OrderID: o.ID, Amount: 10_00, Currency: "CNY", Status: schema.RefundFailed, Error: "the provider refused the refund", CreatedMs: at.UnixMilli() + 2000, UpdatedMs: at.UnixMilli() + 3000},
		{ID: "rf_A", OrderID: o.ID, ClientRefundID: "c-1", Amount: 30_00, Currency: "CNY", Reason: "damaged", Status: schema.RefundSucceeded, CreatedMs: at.UnixMilli() + 1000, UpdatedMs: at.UnixMilli() + 1000},
	}
	if err := rdb.HSet(ctx, schema.OrderKey(3, o.ID), o.Fields()).Err(); err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		raw, _ := json.Marshal(r)
		rdb.HSet(ctx, schema.RefundsKey(3, o.ID), r.ID, raw)
	}
	rdb.HSet(ctx, schema.RefundsKey(3, o.ID), "c:c-1", "rf_A")
	app := serveOrders(t, dir, Sources{Live: NewRedisOrders(rdb), Refunds: NewRedisOrders(rdb)}, log)
	q := url.Values{"appid": {a.AppID}, "key": {a.QueryKey}, "action": {"order"}, "paymentId": {o.ID}}
	res, err := app.Test(httptest.NewRequest("GET", "/api/order?"+q.Encode(), nil))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	var body struct {
		Data schema.OrderView `json:"data"`
	}
	if err := json.Unmarshal(raw, &body); err != nil || res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, raw)
	}
	d := body.Data
	if d.RefundedAmount != "30.00" || len(d.Refunds) != 2 {
		t.Fatalf("data %s", raw)
	}
	first, second := d.Refunds[0], d.Refunds[1]
	if first.RefundID != "rf_A" || first.Amount != "30.00" || first.Status != "succeeded" || first.ClientRefundID != "c-1" ||
		first.Reason != "damaged" || first.CreatedAt != "2026-11-21T22:33:21Z" || second.RefundID != "rf_B" || second.Status != "failed" || second.Error == "" {
		t.Fatalf("refunds %+v", d.Refunds)
	}
}
