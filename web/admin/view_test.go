package admin

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// otherMerchantsOrder is an order of a second merchant: the view of the
// first must not show it.
func otherMerchantsOrder(t *testing.T, mstore *merchant.Store, store *command.Store) string {
	t.Helper()
	ctx := context.Background()
	m, err := mstore.Create(ctx, merchant.NewAccount{Name: "Other Shop", Callback: "http://127.0.0.1:9/cb"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	o := &schema.Order{ID: schema.NewOrderID(now, schema.RandomShard()), AppID: m.AppID, Sandbox: true, Amount: 9_00,
		Currency: "CNY", Method: schema.MethodWalletA, Status: schema.StatusReady, CreatedAt: now, UpdatedAt: now, Version: 1}
	if _, _, err := store.Create(ctx, o); err != nil {
		t.Fatal(err)
	}
	return o.ID
}

// views are the console's entries an operator looked at: the audit log's
// merchant.console_view entries of email.
func (e *env) views(t *testing.T, email string) []audit.Row {
	t.Helper()
	rows, err := audit.Read(context.Background(), e.rdb, schema.AuditKey(schema.AuditTag), 500)
	if err != nil {
		t.Fatal(err)
	}
	var out []audit.Row
	for _, r := range rows {
		if r.Action == "merchant.console_view" && r.ActorEmail == email {
			out = append(out, r)
		}
	}
	return out
}

// TestMerchantConsoleViewAudited: every operator role opens the merchant's
// overview, orders and an order read-only; each look is one audit entry
// with the actor, the merchant and the source address, and the pages carry
// no form but the frame's logout.
func TestMerchantConsoleViewAudited(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		name, email string
	}{
		{"admin", "ann@ops.test"},
		{"support", "sam@ops.test"},
		{"auditor", "al@ops.test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := e.session(t, access.RealmOperator, tc.email)
			base := "/admin/merchants/" + e.appid + "/view"
			pages := []struct{ path, via, want string }{
				{base, "overview", `data-kpi="created"`},
				{base + "/orders?status=ready", "orders", `data-id="` + e.mismatch + `"`},
				{base + "/orders/" + e.mismatch, "order:" + e.mismatch, `data-order-id>` + e.mismatch},
			}
			for i, p := range pages {
				res := e.do(t, get(p.path, s))
				body, _ := io.ReadAll(res.Body)
				if res.StatusCode != http.StatusOK || !strings.Contains(string(body), p.want) {
					t.Fatalf("GET %s: %d\n%s", p.path, res.StatusCode, body)
				}
				if strings.Contains(string(body), e.other) {
					t.Fatalf("GET %s shows another merchant's order", p.path)
				}
				if n := strings.Count(string(body), `method="post"`); n != 2 { // the frame's two logout forms
					t.Fatalf("GET %s offers %d post forms, want only the 2 logout forms", p.path, n)
				}
				got := e.views(t, tc.email)
				if len(got) != i+1 {
					t.Fatalf("after %s: %d view entries, want %d", p.path, len(got), i+1)
				}
				last := got[len(got)-1]
				if last.AppID != e.appid || last.Target != "merchant:"+e.appid || last.Source == "" || last.Details["via"] != p.via ||
					last.Realm != string(access.RealmOperator) {
					t.Fatalf("entry %+v", last.Entry)
				}
			}
		})
	}
}

// TestMerchantConsoleViewOwnOrdersOnly: another merchant's order and an
// unknown merchant are 404 through the view, and a look at an unknown
// merchant is not logged as a look at anything.
func TestMerchantConsoleViewOwnOrdersOnly(t *testing.T) {
	e := newEnv(t)
	s := e.session(t, access.RealmOperator, "al@ops.test")
	for _, p := range []string{
		"/admin/merchants/" + e.appid + "/view/orders/" + e.other,
		"/admin/merchants/nosuchmerchant/view",
		"/admin/merchants/" + e.appid + "/view/orders/not-an-id",
	} {
		if res := e.do(t, get(p, s)); res.StatusCode != http.StatusNotFound {
			t.Fatalf("GET %s: %d, want 404", p, res.StatusCode)
		}
	}
	if n := len(e.views(t, "al@ops.test")); n != 1 { // only the look at the merchant's own view
		t.Fatalf("%d view entries, want 1", n)
	}
}

// TestMerchantConsoleViewRefusesWrites: a write sent through the view with
// a valid session and CSRF token — the merchant console's own refund,
// cancel, resend and sandbox forms, and a post to the view itself — is
// refused with 403 for the administrator too, and nothing changes.
func TestMerchantConsoleViewRefusesWrites(t *testing.T) {
	e := newEnv(t)
	s := e.session(t, access.RealmOperator, "ann@ops.test")
	base := "/admin/merchants/" + e.appid + "/view"
	before := e.state(t)
	for _, p := range []string{
		base + "/orders/" + e.mismatch + "/refund",
		base + "/orders/" + e.mismatch + "/cancel",
		base + "/orders/" + e.mismatch + "/resend",
		base + "/orders/" + e.mismatch + "/sandbox",
		base + "/orders",
		base,
	} {
		res := e.do(t, post(p, s, url.Values{"csrf": {s.CSRF}, "reason": {"x"}, "to": {"paid"}}))
		if res.StatusCode != http.StatusForbidden {
			t.Fatalf("POST %s: %d, want 403", p, res.StatusCode)
		}
	}
	if e.state(t) != before {
		t.Fatal("a write through the view changed Redis")
	}
}

// TestMerchantConsoleViewRefundFilters: the operator's view of a
// merchant's orders filters by refund state as the merchant's console
// does, and names every state in words.
func TestMerchantConsoleViewRefundFilters(t *testing.T) {
	e := newEnv(t)
	s := e.session(t, access.RealmOperator, "sam@ops.test")
	base := "/admin/merchants/" + e.appid + "/view/orders"
	for _, tc := range []struct{ query, want string }{
		{"?status=partially_refunded", `<option value="partially_refunded" selected>Partially refunded</option>`},
		{"?status=refunded", `<option value="refunded" selected>Refunded</option>`},
		{"?status=ready", `data-badge="ready">Awaiting payment<`},
		{"?status=ready", `data-method="wallet_a">Wallet A<`},
	} {
		res := e.do(t, get(base+tc.query, s))
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK || !strings.Contains(string(body), tc.want) {
			t.Errorf("GET %s: %d, want %q in\n%.2000s", tc.query, res.StatusCode, tc.want, body)
		}
	}
}

// TestOperatorTimeZone: an operator's times read in the zone they chose,
// on the operator's own pages and their view of a merchant's order, and
// another operator's stay in UTC.
func TestOperatorTimeZone(t *testing.T) {
	e := newEnv(t)
	sam := e.session(t, access.RealmOperator, "sam@ops.test")
	al := e.session(t, access.RealmOperator, "al@ops.test")
	page := "/admin/merchants/" + e.appid + "/view/orders/" + e.mismatch
	res := e.do(t, post("/admin/zone", sam, url.Values{"csrf": {sam.CSRF}, "zone": {"Asia/Dhaka"}}))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("setting a zone answered %d", res.StatusCode)
	}
	for _, tc := range []struct {
		who       *access.Session
		want, not string
	}{
		{sam, ` GMT+6</time>`, ` UTC</time>`},
		{al, ` UTC</time>`, ` GMT+6</time>`},
	} {
		body, _ := io.ReadAll(e.do(t, get(page, tc.who)).Body)
		if !strings.Contains(string(body), tc.want) || strings.Contains(string(body), tc.not) {
			t.Errorf("%s: want %q, not %q:\n%.1500s", tc.who.Email, tc.want, tc.not, body)
		}
	}
	// The merchant's page: its methods by name, created in Dhaka's time.
	body, _ := io.ReadAll(e.do(t, get("/admin/merchants/"+e.appid, sam)).Body)
	if !strings.Contains(string(body), `title="wallet_a" data-method="wallet_a">Wallet A<`) || !strings.Contains(string(body), ` GMT+6</time>`) {
		t.Errorf("merchant page: method names or zone missing:\n%.1500s", body)
	}
	// The overview's days are Dhaka's, read from ClickHouse in that zone.
	for _, rng := range []string{"today", "7d"} {
		res := e.do(t, get("/admin/merchants/"+e.appid+"/view?range="+rng, sam))
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK || !strings.Contains(string(body), `data-kpi="created"`) {
			t.Errorf("overview %s in Dhaka: %d\n%.800s", rng, res.StatusCode, body)
		}
	}
}
