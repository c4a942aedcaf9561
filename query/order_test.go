package query

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

func TestOrderQuery(t *testing.T) {
	ctx, rdb, accounts, log := newRedisFixture(t)
	a, _ := accounts.Create(ctx, merchant.NewAccount{Name: "a", Sandbox: true})
	b, _ := accounts.Create(ctx, merchant.NewAccount{Name: "b"})
	off, _ := accounts.Create(ctx, merchant.NewAccount{Name: "off"})
	_, _ = accounts.SetDisabled(ctx, off.AppID, true)
	dir := merchant.NewDirectory(accounts, log, time.Millisecond)

	at := time.Date(2026, 11, 21, 22, 33, 20, 0, time.UTC)
	o := schema.Order{ID: schema.NewOrderID(at, 5), AppID: a.AppID, Sandbox: true, ClientOrderID: "A-77", Amount: 100_00,
		Currency: "CNY", Method: schema.MethodWalletA, Status: schema.StatusPaid, QRPayload: "x",
		NotifyURL: "https://shop.test/h", CreatedAt: at, UpdatedAt: at, CompletedAt: at.Add(time.Minute), Version: 2}
	if err := rdb.HSet(ctx, schema.OrderKey(5, o.ID), o.Fields()).Err(); err != nil {
		t.Fatal(err)
	}
	app := serveOrders(t, dir, Sources{Live: NewRedisOrders(rdb)}, log)

	tests := []struct {
		name   string
		q      url.Values
		status int
		kind   string
	}{
		{"found", url.Values{"appid": {a.AppID}, "key": {a.QueryKey}, "action": {"order"}, "paymentId": {o.ID}}, 200, ""},
		{"no key", url.Values{"appid": {a.AppID}, "action": {"order"}, "paymentId": {o.ID}}, 401, "invalid_key"},
		{"wrong key", url.Values{"appid": {a.AppID}, "key": {b.QueryKey}, "action": {"order"}, "paymentId": {o.ID}}, 401, "invalid_key"},
		{"unknown appid", url.Values{"appid": {"9"}, "key": {a.QueryKey}, "action": {"order"}, "paymentId": {o.ID}}, 401, "invalid_appid"},
		{"disabled", url.Values{"appid": {off.AppID}, "key": {off.QueryKey}, "action": {"order"}, "paymentId": {o.ID}}, 403, "merchant_disabled"},
		{"another merchant's order", url.Values{"appid": {b.AppID}, "key": {b.QueryKey}, "action": {"order"}, "paymentId": {o.ID}}, 404, "order_not_found"},
		{"unknown order", url.Values{"appid": {a.AppID}, "key": {a.QueryKey}, "action": {"order"}, "paymentId": {schema.NewOrderID(at, 5)}}, 404, "order_not_found"},
		{"malformed id", url.Values{"appid": {a.AppID}, "key": {a.QueryKey}, "action": {"order"}, "paymentId": {"../x"}}, 404, "order_not_found"},
		{"no paymentId", url.Values{"appid": {a.AppID}, "key": {a.QueryKey}, "action": {"order"}}, 400, "missing_parameter"},
		{"no action", url.Values{"appid": {a.AppID}, "key": {a.QueryKey}}, 400, "missing_parameter"},
		{"unknown action", url.Values{"appid": {a.AppID}, "key": {a.QueryKey}, "action": {"refund"}}, 400, "invalid_parameter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := app.Test(httptest.NewRequest("GET", "/api/order?"+tt.q.Encode(), nil))
			if err != nil {
				t.Fatal(err)
			}
			var body struct {
				Code  int            `json:"code"`
				Error string         `json:"error"`
				Data  map[string]any `json:"data"`
			}
			raw, _ := io.ReadAll(res.Body)
			_ = json.Unmarshal(raw, &body)
			if res.StatusCode != tt.status || body.Error != tt.kind {
				t.Fatalf("got %d %s, want %d %s", res.StatusCode, raw, tt.status, tt.kind)
			}
			if tt.status != 200 {
				return
			}
			want := map[string]any{
				"paymentId": o.ID, "orderId": o.ID, "status": 2.0, "status_str": "paid", "amount": "100.00",
				"currency": "CNY", "paymentMethod": "wallet_a", "clientOrderId": "A-77", "notify_url": "https://shop.test/h",
				"createdAt": "2026-11-21T22:33:20Z", "completedTime": "2026-11-21T22:34:20Z",
				"redirectUrl": "https://pay.test/payment/" + o.ID, "qrImageUrl": "https://pay.test/payment/" + o.ID + "/qr.png",
				"paidWithBalance": false, "sandbox": true,
			}
			for k, v := range want {
				if body.Data[k] != v {
					t.Errorf("data.%s = %v, want %v", k, body.Data[k], v)
				}
			}
			if !json.Valid(raw) || !containsLiteral(raw, `"amount":"100.00"`) {
				t.Errorf("amount must be a two-decimal string, as create and the webhook answer it: %s", raw)
			}
		})
	}
}

func containsLiteral(b []byte, s string) bool { return strings.Contains(string(b), s) }

// newRedisFixture is a database of this test's own on the real Redis
// (internal/testenv), with the account store over it.
func newRedisFixture(t *testing.T) (context.Context, *redis.Client, *merchant.Store, *slog.Logger) {
	t.Helper()
	rdb := testenv.Redis(t)
	return context.Background(), rdb, merchant.NewStore(rdb), slog.New(slog.NewTextHandler(io.Discard, nil))
}

// serveOrders is an app serving /api/order from src, as serve wires it.
func serveOrders(t *testing.T, dir *merchant.Directory, src Sources, log *slog.Logger) *testApp {
	t.Helper()
	q, err := NewOrders(Config{PublicURL: "https://pay.test"}, dir, src, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	return &testApp{serve: HTTPDoor(q, log)}
}

// HTTPDoor serves GET /api/order over q as the gateway mounts it (web/api),
// for the tests here that still read the use cases through the door.
// door_test.go sets it: as package query_test it may import the door, which
// imports this package.
var HTTPDoor func(q *Orders, log *slog.Logger) func(r *http.Request, msTimeout int) (*http.Response, error)

// testApp is the door under test; Test is fiber's App.Test (1 s unless
// told, -1: no timeout).
type testApp struct {
	serve func(r *http.Request, msTimeout int) (*http.Response, error)
}

func (a *testApp) Test(r *http.Request, msTimeout ...int) (*http.Response, error) {
	ms := 1000
	if len(msTimeout) > 0 {
		ms = msTimeout[0]
	}
	return a.serve(r, ms)
}
