package query

import (
	"context"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// emptyReads answers every ClickHouse read with nothing: the test is about
// who gets to ask, not what they get.
type emptyReads struct{}

func (emptyReads) Page(context.Context, Filter) ([]schema.Order, error)   { return nil, nil }
func (emptyReads) Count(context.Context, Filter) (int, error)             { return 0, nil }
func (emptyReads) Summary(context.Context, ReportFilter) (Summary, error) { return Summary{}, nil }
func (emptyReads) Series(context.Context, ReportFilter, SeriesSpec) ([]SeriesRow, error) {
	return nil, nil
}
func (emptyReads) Export(context.Context, ReportFilter) ([]schema.Order, ExportRest, error) {
	return nil, func(func(*schema.Order) error) error { return nil }, nil
}

// TestReportLimitIsItsOwnBudget: the read side's ClickHouse queries
// (orders, summary, timeseries, export) spend a per-merchant budget of their
// own in Redis. A merchant that has used it up gets 429 with Retry-After on
// every one of them, while its action=order still answers (its query budget
// is untouched) and another merchant's listing is unaffected; a merchant's
// --report override replaces the default. Before the report class, listings
// spent the query budget (200/s), above what ClickHouse serves.
func TestReportLimitIsItsOwnBudget(t *testing.T) {
	ctx, rdb, accounts, log := newRedisFixture(t)
	flood, _ := accounts.Create(ctx, merchant.NewAccount{Name: "flood"})
	quiet, _ := accounts.Create(ctx, merchant.NewAccount{Name: "quiet"})
	tight, _ := accounts.Create(ctx, merchant.NewAccount{Name: "tight"})
	if _, err := accounts.SetLimits(ctx, tight.AppID, merchant.LimitOverrides{Report: "1/h:1"}); err != nil {
		t.Fatal(err)
	}
	dir := merchant.NewDirectory(accounts, log, time.Millisecond)
	at := time.Now().UTC().Truncate(time.Second)
	o := schema.Order{ID: schema.NewOrderID(at, 5), AppID: flood.AppID, Amount: 100_00, Currency: "CNY",
		Method: schema.MethodWalletA, Status: schema.StatusPending, QRPayload: "x", CreatedAt: at, UpdatedAt: at, Version: 1}
	if err := rdb.HSet(ctx, schema.OrderKey(5, o.ID), o.Fields()).Err(); err != nil {
		t.Fatal(err)
	}
	limiter, err := platform.NewLimiter(rdb, platform.LimiterConfig{}, prometheus.NewRegistry(), log)
	if err != nil {
		t.Fatal(err)
	}
	// The report budget: 3 requests, refilled once an hour (none during
	// the test); the query budget is ample.
	cfg := Config{PublicURL: "https://pay.test", QueryLimit: platform.Limit{PerSecond: 1000, Burst: 1000},
		ReportLimit: platform.Limit{PerSecond: 1.0 / 3600, Burst: 3}}
	q, err := NewOrders(cfg, dir, Sources{Live: NewRedisOrders(rdb), Listing: mustListing(t, ListingDeps{Lister: emptyReads{}}), Reports: emptyReads{}}, limiter, log)
	if err != nil {
		t.Fatal(err)
	}
	app := &testApp{serve: HTTPDoor(q, log)}

	span := url.Values{"from": {at.Add(-time.Hour).Format(time.RFC3339)}, "to": {at.Add(time.Hour).Format(time.RFC3339)}}
	call := func(acct *merchant.Account, action string, extra url.Values) (int, string) {
		t.Helper()
		v := url.Values{"appid": {acct.AppID}, "key": {acct.QueryKey}, "action": {action}}
		for k, vs := range extra {
			v[k] = vs
		}
		res, err := app.Test(httptest.NewRequest("GET", "/api/order?"+v.Encode(), nil), -1)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		return res.StatusCode, res.Header.Get("Retry-After")
	}
	for i := range 3 { // the flooding merchant spends its report budget
		if code, _ := call(flood, "orders", nil); code != 200 {
			t.Fatalf("listing %d within the budget: %d", i+1, code)
		}
	}
	steps := []struct {
		name   string
		acct   *merchant.Account
		action string
		extra  url.Values
		want   int
	}{
		{"flood's listing over its report limit", flood, "orders", nil, 429},
		{"flood's summary over its report limit", flood, "summary", span, 429},
		{"flood's timeseries over its report limit", flood, "timeseries", url.Values{"from": span["from"], "to": span["to"], "interval": {"hour"}, "groupBy": {"status"}}, 429},
		{"flood's export over its report limit", flood, "export", url.Values{"from": span["from"], "to": span["to"], "format": {"csv"}}, 429},
		{"flood's action=order still answers", flood, "order", url.Values{"paymentId": {o.ID}}, 200},
		{"another merchant's listing", quiet, "orders", nil, 200},
		{"another merchant's summary", quiet, "summary", span, 200},
		{"an override's first listing", tight, "orders", nil, 200},
		{"an override's second listing", tight, "orders", nil, 429},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			code, retry := call(s.acct, s.action, s.extra)
			if code != s.want {
				t.Fatalf("got %d, want %d", code, s.want)
			}
			if s.want == 429 && retry == "" {
				t.Error("429 without Retry-After")
			}
		})
	}
}
