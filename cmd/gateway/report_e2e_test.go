package main

import (
	"compress/gzip"
	"encoding/csv"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
)

// TestReportsEndToEnd drives the real binary: orders of two merchants,
// then action=orders' new filters, summary, timeseries and export (CSV,
// gzip), each bad input answered 400 naming the parameter, and neither
// merchant ever seeing the other's orders.
func TestReportsEndToEnd(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	var shop, other account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	e.cli(&other, "merchant", "create", "--name", "other", "--sandbox", "--json")
	s := e.serve("GATEWAY_REPORT_MAX_RANGE=240h")
	var shopIDs []string
	// Descriptions and clientOrderIds a spreadsheet would run as formulas:
	// the export defuses them.
	typed := [][2]string{{`=HYPERLINK("http://x","y")`, "-2-3"}, {"+1+cmd", "r-2"}, {"plain", "r-3"}}
	for i, mc := range [][2]string{{"wallet_a", "CNY"}, {"wallet_a", "USD"}, {"wallet_b", "USD"}} {
		p := createParams(shop.AppID)
		p["paymentMethod"], p["currency"] = mc[0], mc[1]
		p["description"], p["clientOrderId"] = typed[i][0], typed[i][1]
		r := s.create(t, p, shop.APIKey)
		id, _ := r.Data["paymentId"].(string)
		if r.Status != 200 || id == "" {
			t.Fatalf("create: %+v", r)
		}
		shopIDs = append(shopIDs, id)
	}
	if r := s.sandbox(t, shop.AppID, shop.QueryKey, shopIDs[1], "pay"); r.Status != 200 {
		t.Fatalf("sandbox pay: %+v", r)
	}
	otherID, _ := s.create(t, createParams(other.AppID), other.APIKey).Data["paymentId"].(string)
	from, to := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	span := "&from=" + from + "&to=" + to
	// A listing with a time range counts in ClickHouse (a status filter
	// alone would count in Redis): wait until the projector has written
	// every order and the payment.
	projected := func(acct account, params string, want float64) func() bool {
		return func() bool {
			total, _ := s.list(t, acct.AppID, acct.QueryKey, params+span).Data["total"].(float64)
			return total == want
		}
	}
	testenv.Eventually(t, 10*time.Second, "condition", projected(shop, "status=paid", 1))
	testenv.Eventually(t, 10*time.Second, "condition", projected(shop, "", 3))
	testenv.Eventually(t, 10*time.Second, "condition", projected(other, "", 1))
	get := func(acct account, params string) apiResponse {
		t.Helper()
		q := url.Values{"appid": {acct.AppID}, "key": {acct.QueryKey}}
		req, _ := http.NewRequest(http.MethodGet, s.base+"/api/order?"+q.Encode()+"&"+params, nil)
		return call(t, req)
	}
	t.Run("listing filters", func(t *testing.T) {
		for params, want := range map[string]float64{"paymentMethod=wallet_b": 1, "currency=USD": 2, "paymentMethod=wallet_a&currency=USD": 1} {
			if total, _ := s.list(t, shop.AppID, shop.QueryKey, params).Data["total"].(float64); total != want {
				t.Errorf("%s: total %v, want %v", params, total, want)
			}
		}
	})
	t.Run("summary", func(t *testing.T) {
		r := get(shop, "action=summary"+span)
		paid, _ := r.Data["paidAmount"].(map[string]any)
		if r.Status != 200 || r.Data["created"] != 3.0 || r.Data["paid"] != 1.0 || r.Data["open"] != 2.0 || paid["USD"] != "100.50" || len(paid) != 1 {
			t.Fatalf("shop summary: %s", r.Raw)
		}
		if r := get(other, "action=summary"+span); r.Data["created"] != 1.0 {
			t.Fatalf("other's summary: %s", r.Raw)
		}
		if r := get(shop, "action=summary&paymentMethod=wallet_a&currency=USD"+span); r.Data["created"] != 1.0 || r.Data["paid"] != 1.0 {
			t.Fatalf("filtered summary: %s", r.Raw)
		}
	})
	t.Run("timeseries", func(t *testing.T) {
		r := get(shop, "action=timeseries&interval=hour&groupBy=currency&tz=Asia/Kathmandu"+span)
		buckets, _ := r.Data["buckets"].([]any)
		if r.Status != 200 || len(buckets) < 2 || len(buckets) > 3 {
			t.Fatalf("timeseries: %s", r.Raw)
		}
		counted := 0.0
		for _, b := range buckets {
			for _, g := range b.(map[string]any)["groups"].([]any) {
				counted += g.(map[string]any)["count"].(float64)
			}
		}
		if counted != 3 {
			t.Fatalf("timeseries counts %v orders, want 3: %s", counted, r.Raw)
		}
	})
	t.Run("export", func(t *testing.T) {
		for _, gz := range []bool{false, true} {
			rows := exportCSV(t, s.base, shop, span, gz)
			if len(rows) != 4 || rows[0][0] != "paymentId" {
				t.Fatalf("export (gzip %v): %v", gz, rows)
			}
			for i, id := range []string{shopIDs[2], shopIDs[1], shopIDs[0]} { // newest first
				if rows[i+1][0] != id {
					t.Fatalf("export row %d is %s, want %s", i+1, rows[i+1][0], id)
				}
			}
			if d, c := rows[3][6], rows[3][7]; d != `'=HYPERLINK("http://x","y")` || c != "'-2-3" {
				t.Errorf("export (gzip %v): description %q, clientOrderId %q, want them defused", gz, d, c)
			}
			if d := rows[2][6]; d != "'+1+cmd" {
				t.Errorf("export (gzip %v): description %q, want it defused", gz, d)
			}
		}
		if rows := exportCSV(t, s.base, other, span, false); len(rows) != 2 || rows[1][0] != otherID {
			t.Fatalf("other's export: %v", rows)
		}
	})
	bad := []struct{ name, params, names string }{
		{"unknown parameter of orders", "action=orders&paymentmethod=wallet_a", `"paymentmethod"`},
		{"unknown parameter of order", "action=order&paymentId=" + otherID + "&appId=x", `"appId"`},
		{"to past DateTime", "action=orders&to=2200-01-01T00:00:00Z", "to must be"},
		{"from after to", "action=summary&from=" + to + "&to=" + from, "to must be after from"},
		{"range over the limit", "action=export&from=2026-01-01T00:00:00Z&to=2026-01-11T00:00:01Z", "to must be at most 10 days"},
		{"unknown interval", "action=timeseries&interval=minute" + span, "interval"},
		{"unknown groupBy", "action=timeseries&groupBy=amount" + span, "groupBy"},
		{"unknown time zone", "action=timeseries&tz=Mars/Olympus" + span, "tz"},
		{"unknown parameter of summary", "action=summary&interval=day" + span, `"interval"`},
		{"unknown format", "action=export&format=xlsx" + span, "format"},
		{"unknown method", "action=summary&paymentMethod=visa" + span, "paymentMethod"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			r := get(shop, tt.params)
			if r.Status != 400 || r.Error != "invalid_parameter" || !strings.Contains(r.Msg, tt.names) {
				t.Fatalf("%s: %d %s, want 400 naming %s", tt.params, r.Status, r.Raw, tt.names)
			}
		})
	}
}

// exportCSV reads a merchant's export, asking for gzip when gz.
func exportCSV(t *testing.T, base string, acct account, span string, gz bool) [][]string {
	t.Helper()
	q := url.Values{"appid": {acct.AppID}, "key": {acct.QueryKey}, "action": {"export"}}
	req, _ := http.NewRequest(http.MethodGet, base+"/api/order?"+q.Encode()+span, nil)
	if gz {
		req.Header.Set("Accept-Encoding", "gzip") // set by hand, so the client does not undo it
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
		raw, _ := io.ReadAll(res.Body)
		t.Fatalf("export: %d %s %s", res.StatusCode, res.Header.Get("Content-Type"), raw)
	}
	var body io.Reader = res.Body
	if gz {
		if res.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("export asked for gzip, Content-Encoding %q", res.Header.Get("Content-Encoding"))
		}
		if body, err = gzip.NewReader(res.Body); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := csv.NewReader(body).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
