package main

import (
	"net/http"
	"net/url"
	"testing"
)

// TestReportLimitAcrossProcesses: two query processes share one merchant's
// report limit (GATEWAY_RATE_REPORT) through Redis; over it the listing and
// the summary are 429 with Retry-After on either process while the same
// merchant's action=order still answers, another merchant lists freely, and
// a merchant's --report override replaces the default.
func TestReportLimitAcrossProcesses(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	var shop, other, tight account
	e.cli(&shop, "merchant", "create", "--name", "flood", "--sandbox", "--json")
	e.cli(&other, "merchant", "create", "--name", "quiet", "--sandbox", "--json")
	e.cli(&tight, "merchant", "create", "--name", "tight", "--sandbox", "--json")
	e.cli(nil, "merchant", "limits", tight.AppID, "--report", "1/h:1", "--json")
	// Four report requests per merchant, refilled once an hour: none
	// during the test.
	a := e.serve("GATEWAY_ROLES=command,query", "GATEWAY_RATE_REPORT=1/h:4")
	b := e.serve("GATEWAY_ROLES=query", "GATEWAY_RATE_REPORT=1/h:4")
	id, _ := a.create(t, createParams(shop.AppID), shop.APIKey).Data["paymentId"].(string)
	if id == "" {
		t.Fatal("create failed")
	}
	for i, s := range []*server{a, b, a, b} {
		if r := s.list(t, shop.AppID, shop.QueryKey, ""); r.Status != 200 {
			t.Fatalf("listing %d within the limit: %+v", i+1, r)
		}
	}
	summary := func(s *server, acct account) apiResponse {
		t.Helper()
		q := url.Values{"appid": {acct.AppID}, "key": {acct.QueryKey}, "action": {"summary"},
			"from": {"2026-01-01T00:00:00Z"}, "to": {"2026-06-01T00:00:00Z"}}
		req, _ := http.NewRequest(http.MethodGet, s.base+"/api/order?"+q.Encode(), nil)
		return call(t, req)
	}
	refused := func(name string, r apiResponse) {
		t.Helper()
		if r.Status != 429 || r.Error != "rate_limited" || r.RetryAfter == "" {
			t.Errorf("%s over the report limit: %+v", name, r)
		}
	}
	refused("listing on a", a.list(t, shop.AppID, shop.QueryKey, ""))
	refused("listing on b", b.list(t, shop.AppID, shop.QueryKey, ""))
	refused("summary on b", summary(b, shop))
	if r := b.order(t, shop.AppID, shop.QueryKey, id); r.Status != 200 {
		t.Errorf("action=order of the limited merchant: %+v", r)
	}
	if r := a.list(t, other.AppID, other.QueryKey, ""); r.Status != 200 {
		t.Errorf("another merchant's listing: %+v", r)
	}
	if r := summary(b, other); r.Status != 200 {
		t.Errorf("another merchant's summary: %+v", r)
	}
	if r := a.list(t, tight.AppID, tight.QueryKey, ""); r.Status != 200 {
		t.Errorf("the override's first listing: %+v", r)
	}
	refused("the override's second listing", b.list(t, tight.AppID, tight.QueryKey, ""))
}
