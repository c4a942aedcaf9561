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

func TestWebhookLogQuery(t *testing.T) {
	ctx, rdb, accounts, log := newRedisFixture(t)
	a, _ := accounts.Create(ctx, merchant.NewAccount{Name: "a"})
	b, _ := accounts.Create(ctx, merchant.NewAccount{Name: "b"})
	dir := merchant.NewDirectory(accounts, log, time.Millisecond)

	at := time.Date(2026, 11, 21, 22, 33, 20, 0, time.UTC)
	paid := schema.Order{ID: schema.NewOrderID(at, 3), AppID: a.AppID, Amount: 5_00, Currency: "USD",
		Method: schema.MethodWalletA, Status: schema.StatusPaid, NotifyURL: "https://shop.test/h", CreatedAt: at, CompletedAt: at}
	quiet := paid
	quiet.ID = schema.NewOrderID(at, 4)
	for _, o := range []schema.Order{paid, quiet} {
		shard, _ := schema.ParseOrderID(o.ID)
		if err := rdb.HSet(ctx, schema.OrderKey(shard, o.ID), o.Fields()).Err(); err != nil {
			t.Fatal(err)
		}
	}
	attempts := []schema.WebhookAttempt{
		{At: "2026-11-21T22:33:21Z", Attempt: 1, Status: 500, Error: "HTTP 500", Body: "oops", LatencyMs: 12},
		{At: "2026-11-21T22:33:37Z", Attempt: 2, Status: 200, Body: "success", LatencyMs: 8, Success: true},
	}
	for _, at := range attempts {
		js, _ := json.Marshal(at)
		rdb.RPush(ctx, schema.WebhookLogKey(3, paid.ID), js)
	}

	due := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	rdb.HSet(ctx, schema.WebhookKey(3, paid.ID), "st", "pending", "n", "2", "due", due.UnixMilli(), "appid", a.AppID)

	live := NewRedisOrders(rdb)
	app := serveOrders(t, dir, Sources{Live: live, Webhooks: live}, log)

	tests := []struct {
		name   string
		q      url.Values
		status int
		kind   string
		want   int // attempts
	}{
		{"own order", url.Values{"appid": {a.AppID}, "key": {a.QueryKey}, "paymentId": {paid.ID}}, 200, "", 2},
		{"no webhook yet", url.Values{"appid": {a.AppID}, "key": {a.QueryKey}, "paymentId": {quiet.ID}}, 200, "", 0},
		{"another merchant's order", url.Values{"appid": {b.AppID}, "key": {b.QueryKey}, "paymentId": {paid.ID}}, 404, "order_not_found", 0},
		{"unknown order", url.Values{"appid": {a.AppID}, "key": {a.QueryKey}, "paymentId": {schema.NewOrderID(at, 3)}}, 404, "order_not_found", 0},
		{"wrong key", url.Values{"appid": {a.AppID}, "key": {b.QueryKey}, "paymentId": {paid.ID}}, 401, "invalid_key", 0},
		{"no paymentId", url.Values{"appid": {a.AppID}, "key": {a.QueryKey}}, 400, "missing_parameter", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.q.Set("action", "webhooks")
			res, err := app.Test(httptest.NewRequest("GET", "/api/order?"+tt.q.Encode(), nil))
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(res.Body)
			var body struct {
				Error string        `json:"error"`
				Data  *WebhooksView `json:"data"`
			}
			_ = json.Unmarshal(raw, &body)
			if res.StatusCode != tt.status || body.Error != tt.kind {
				t.Fatalf("got %d %s, want %d %s", res.StatusCode, raw, tt.status, tt.kind)
			}
			if tt.status != 200 {
				return
			}
			if body.Data == nil || body.Data.Attempts == nil || len(body.Data.Attempts) != tt.want {
				t.Fatalf("data %s, want %d attempts (an empty list, not null)", raw, tt.want)
			}
			if tt.want > 0 && body.Data.Attempts[1] != attempts[1] {
				t.Errorf("attempt %+v, want %+v", body.Data.Attempts[1], attempts[1])
			}
			wantState := &schema.WebhookState{EventID: "evt_paid_" + paid.ID, State: "pending", Automatic: 2,
				NextAttemptAt: schema.WireTime(due)}
			switch {
			case tt.want == 0 && body.Data.Delivery != nil:
				t.Errorf("delivery %+v for an order without one", body.Data.Delivery)
			case tt.want > 0 && (body.Data.Delivery == nil || *body.Data.Delivery != *wantState):
				t.Errorf("delivery %s, want %+v", raw, wantState)
			}
		})
	}
}
