package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/epay"
	"github.com/paygate/gateway/internal/testenv"
)

// apiTypesEnv is the operator's mapping api.php's tests serve with.
const apiTypesEnv = "GATEWAY_EPAY_TYPES=t1=wallet_a,t2=wallet_b"

// epayAPI calls api.php: GET with q in the query string, or POST with q in
// the query string and form as the body (form's names may repeat q's).
func (s *server) epayAPI(t *testing.T, q url.Values, form string) map[string]any {
	t.Helper()
	var res *http.Response
	var err error
	if form == "" {
		res, err = http.Get(s.base + "/api.php?" + q.Encode())
	} else {
		res, err = http.Post(s.base+"/api.php?"+q.Encode(), "application/x-www-form-urlencoded", strings.NewReader(form))
	}
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("Content-Type"), "json") {
		t.Fatalf("api.php %v: %d %s\n%s", q.Get("act"), res.StatusCode, raw, s.logs)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return out
}

// apiEventually calls api.php until ok accepts the answer (the listing
// reads ClickHouse, which the projector fills a moment after a change).
func (s *server) apiEventually(t *testing.T, q url.Values, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := s.epayAPI(t, q, "")
		if ok(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("api.php %v: still %v", q, got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func wantCode(t *testing.T, got map[string]any, code float64) {
	t.Helper()
	if got["code"] != code {
		t.Fatalf("answer %v, want code %v", got, code)
	}
}

// TestEpayAPI: through the binary, api.php answers a merchant's plugin
// from SPEC.md's orders (their type the operator's word for the method),
// by trade_no and by out_trade_no, before and after payment; lists with
// the protocol's paging (limit read as at most 50, offset); tells the
// merchant's counts; refunds through our refund rules (never above the
// amount, out_refund_no idempotent). The attacks each have a guard: a
// wrong key, a disabled pid, another merchant's order, a refund above the
// amount, limit=1000, and a value split across two parameters.
func TestEpayAPI(t *testing.T) {
	e := newE2E(t)
	e.run("migrate")
	var a, b, off account
	e.cli(&a, "merchant", "create", "--name", "shop-a", "--sandbox", "--json")
	e.cli(&b, "merchant", "create", "--name", "shop-b", "--sandbox", "--json")
	e.cli(&off, "merchant", "create", "--name", "shop-off", "--sandbox", "--json")
	e.run("merchant", "disable", off.AppID)
	// Available money, so that only the refund's own rule stops a refund
	// above the order's amount (a short balance would stop it first).
	e.cli(nil, "ledger", "adjust", a.AppID, "--amount", "500.00", "--currency", "CNY", "--reason", "float", "--json")
	s := e.serve(apiTypesEnv)
	as := func(m account, kv ...string) url.Values {
		q := url.Values{"pid": {m.AppID}, "key": {m.APIKey}}
		for i := 0; i+1 < len(kv); i += 2 {
			q.Set(kv[i], kv[i+1])
		}
		return q
	}
	mine := placeOrder(t, s, a, "ea-1")
	theirs := placeOrder(t, s, b, "eb-1")

	t.Run("order by trade_no", func(t *testing.T) {
		got := s.epayAPI(t, as(a, "act", "order", "trade_no", mine), "")
		wantCode(t, got, 1)
		want := map[string]any{"trade_no": mine, "out_trade_no": "ea-1", "type": "t1", "pid": a.AppID, "money": "100.50",
			"status": float64(0), "endtime": nil, "name": "Box of 2", "msg": "succ"}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %#v, want %#v (%v)", k, got[k], v, got)
			}
		}
	})
	t.Run("wrong key", func(t *testing.T) {
		q := as(a, "act", "order", "trade_no", mine)
		q.Set("key", b.APIKey)
		wantCode(t, s.epayAPI(t, q, ""), -3)
	})
	t.Run("disabled pid", func(t *testing.T) {
		wantCode(t, s.epayAPI(t, as(off, "act", "query"), ""), -1)
	})
	t.Run("another merchant's order", func(t *testing.T) {
		for _, q := range []url.Values{as(a, "act", "order", "trade_no", theirs), as(a, "act", "order", "out_trade_no", "eb-1")} {
			got := s.epayAPI(t, q, "")
			if got["code"] != float64(-1) || got["msg"] != "order does not exist" {
				t.Fatalf("%v answered %v", q, got)
			}
		}
	})
	t.Run("no act", func(t *testing.T) {
		wantCode(t, s.epayAPI(t, as(a, "act", "nope"), ""), -5)
		wantCode(t, s.epayAPI(t, as(a, "act", "refund", "trade_no", mine, "money", "1"), ""), -5) // by GET
	})

	if r := s.sandbox(t, a.AppID, a.QueryKey, mine, "pay"); r.Status != http.StatusOK {
		t.Fatalf("pay: %d %s", r.Status, r.Raw)
	}
	t.Run("paid, by out_trade_no", func(t *testing.T) {
		got := s.apiEventually(t, as(a, "act", "order", "out_trade_no", "ea-1"), func(m map[string]any) bool { return m["code"] == float64(1) })
		if got["trade_no"] != mine || got["status"] != float64(1) || got["endtime"] == nil {
			t.Fatalf("paid order: %v", got)
		}
	})
	t.Run("merchant info", func(t *testing.T) {
		got := s.apiEventually(t, as(a, "act", "query"), func(m map[string]any) bool { return m["orders_today"] == float64(1) })
		if fmt.Sprint(got["pid"]) != a.AppID || got["active"] != float64(1) || got["money"] != "500.00" || got["orders"] != float64(1) {
			t.Fatalf("query: %v", got)
		}
		if _, given := got["key"]; given {
			t.Fatalf("query echoes the key: %v", got)
		}
	})
	t.Run("refund", func(t *testing.T) {
		refund := func(form string) map[string]any { return s.epayAPI(t, url.Values{"act": {"refund"}}, form) }
		base := url.Values{"pid": {a.AppID}, "key": {a.APIKey}, "trade_no": {mine}}
		over := refund(base.Encode() + "&money=100.51")
		if over["code"] != float64(-1) || !strings.Contains(fmt.Sprint(over["msg"]), "left to refund") {
			t.Fatalf("a refund above the amount: %v", over)
		}
		// A value split across two parameters (a proxy may check the first).
		split := refund(base.Encode() + "&money=0.01&money=100.00")
		if split["code"] != float64(-1) || !strings.Contains(fmt.Sprint(split["msg"]), "given twice") {
			t.Fatalf("money twice: %v", split)
		}
		first := refund(base.Encode() + "&money=1.00&out_refund_no=r-1")
		again := refund(base.Encode() + "&money=1.00&out_refund_no=r-1")
		if first["code"] != float64(1) || first["status"] != "succeeded" || again["refund_no"] != first["refund_no"] {
			t.Fatalf("refund %v, again %v", first, again)
		}
		got := s.epayAPI(t, as(a, "act", "order", "trade_no", mine), "")
		if got["status"] != float64(2) || got["refundmoney"] != "1.00" {
			t.Fatalf("after the refund: %v", got)
		}
	})
	t.Run("an order made through the door", func(t *testing.T) {
		p := epay.Params{"pid": a.AppID, "type": "t2", "out_trade_no": "ea-door", "notify_url": "http://127.0.0.1:9/n",
			"name": "Tom & Jerry = 2", "money": "3.20", "clientip": "203.0.113.5", "param": "a&b=c <i>x</i>"}
		if st, made, raw := s.epayPost(t, "/mapi.php", p, a.APIKey); st != 200 || made.Code != 1 {
			t.Fatalf("mapi.php: %d %s", st, raw)
		}
		got := s.epayAPI(t, as(a, "act", "order", "out_trade_no", "ea-door"), "")
		if got["type"] != "t2" || got["param"] != "a&b=c <i>x</i>" || got["name"] != "Tom & Jerry = 2" || got["money"] != "3.20" {
			t.Fatalf("the door's order: %v", got)
		}
	})
	t.Run("answers match /openapi-epay.json", func(t *testing.T) {
		v := epayValidator(t, s)
		get := func(q url.Values) *http.Request {
			req, _ := http.NewRequest(http.MethodGet, s.base+"/api.php?"+q.Encode(), nil)
			return req
		}
		post := func(form string) *http.Request {
			req, _ := http.NewRequest(http.MethodPost, s.base+"/api.php?act=refund", strings.NewReader(form))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return req
		}
		auth := url.Values{"pid": {a.AppID}, "key": {a.APIKey}}.Encode()
		for name, req := range map[string]*http.Request{
			"order":           get(as(a, "act", "order", "trade_no", mine)),
			"orders":          get(as(a, "act", "orders", "limit", "5")),
			"query":           get(as(a, "act", "query")),
			"another's order": get(as(a, "act", "order", "trade_no", theirs)),
			"wrong key":       get(url.Values{"act": {"query"}, "pid": {a.AppID}, "key": {"nope"}}),
			"no act":          get(as(a)),
			"refund":          post(auth + "&trade_no=" + mine + "&money=0.50&out_refund_no=r-doc"),
			"refund refused":  post(auth + "&trade_no=" + mine + "&money=1000.00"),
		} {
			t.Run(name, func(t *testing.T) { validateEpay(t, v, req, http.StatusOK) })
		}
	})
	t.Run("the operator's mapping", func(t *testing.T) {
		// What the operator console keeps (operator.EpayTypes): every
		// process reads it within a second, over GATEWAY_EPAY_TYPES.
		rdb := testenv.Client(t, e.redisURL)
		if err := rdb.Set(context.Background(), epay.TypesKey, "t7=wallet_a", 0).Err(); err != nil {
			t.Fatal(err)
		}
		s.apiEventually(t, as(a, "act", "order", "trade_no", mine), func(m map[string]any) bool { return m["type"] == "t7" })
		if err := rdb.Del(context.Background(), epay.TypesKey).Err(); err != nil {
			t.Fatal(err)
		}
		s.apiEventually(t, as(a, "act", "order", "trade_no", mine), func(m map[string]any) bool { return m["type"] == "t1" })
	})
	t.Run("orders paged", func(t *testing.T) {
		for i := range 50 {
			placeOrder(t, s, a, fmt.Sprintf("ea-more-%d", i))
		}
		// Once the listing holds all 52 (ea-1, ea-door and these 50),
		// limit=1000 is read as 50.
		s.apiEventually(t, as(a, "act", "orders", "limit", "51", "offset", "50"), func(m map[string]any) bool { return m["count"] == float64(2) })
		all := s.epayAPI(t, as(a, "act", "orders", "limit", "1000"), "")
		rows := all["data"].([]any)
		if all["count"] != float64(50) || len(rows) != 50 {
			t.Fatalf("limit=1000 answered %v rows", all["count"])
		}
		for i := 1; i < len(rows); i++ { // newest first (the same second's in the listing's id order)
			if rows[i].(map[string]any)["addtime"].(string) > rows[i-1].(map[string]any)["addtime"].(string) {
				t.Fatalf("row %d is newer than row %d: %v", i, i-1, rows)
			}
		}
		win := s.epayAPI(t, as(a, "act", "orders", "limit", "2", "offset", "3"), "")
		got := win["data"].([]any)
		if len(got) != 2 || got[0].(map[string]any)["trade_no"] != rows[3].(map[string]any)["trade_no"] ||
			got[1].(map[string]any)["trade_no"] != rows[4].(map[string]any)["trade_no"] {
			t.Fatalf("offset 3, limit 2: %v", got)
		}
	})
}

// placeOrder creates m's order through SPEC.md's API and answers its id.
func placeOrder(t *testing.T, s *server, m account, clientOrderID string) string {
	t.Helper()
	p := createParams(m.AppID)
	p["clientOrderId"], p["description"] = clientOrderID, "Box of 2"
	r := s.create(t, p, m.APIKey)
	if r.Status != http.StatusOK {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	return r.Data["paymentId"].(string)
}
