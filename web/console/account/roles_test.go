package account

import (
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/internal/testenv"
)

// write is one form of the pages, as a browser posts it.
type write struct {
	name    string
	path    string
	vals    func(e *env) url.Values
	allowed []access.Role
}

var (
	owners     = []access.Role{access.RoleOwner}
	developers = []access.Role{access.RoleOwner, access.RoleDeveloper}
	allRoles   = []access.Role{access.RoleOwner, access.RoleDeveloper, access.RoleFinance, access.RoleViewer}
	payers     = []access.Role{access.RoleOwner, access.RoleFinance}
)

func writes(target string) []write {
	none := func(*env) url.Values { return url.Values{} }
	return []write{
		{"resend", "/webhooks/resend", func(e *env) url.Values { return url.Values{"paymentId": {e.deadDelivery(e.shop.AppID)}} }, developers},
		{"resend dead", "/webhooks/resend-dead", func(e *env) url.Values {
			e.deadDelivery(e.shop.AppID)
			return url.Values{"from": {e.now.Add(-48 * 3600e9).Format(dateInput)}, "to": {e.now.Add(3600e9).Format(dateInput)}}
		}, developers},
		{"rotate API key", "/developers/rotate/api-key", func(*env) url.Values { return url.Values{"grace": {"24"}} }, developers},
		{"rotate query key", "/developers/rotate/query-key", none, developers},
		{"rotate webhook secret", "/developers/rotate/webhook-secret", none, developers},
		{"callback", "/developers/callback", func(*env) url.Values { return url.Values{"callback": {"https://93.184.216.35/hook"}} }, developers},
		{"signature debugger", "/developers/signature", func(*env) url.Values {
			return url.Values{"endpoint": {"createorder"}, "params": {"amount=1.00"}}
		}, developers},
		{"invite", "/team/invite", func(*env) url.Values { return url.Values{"email": {"new@shop.test"}, "role": {"viewer"}} }, owners},
		{"change role", "/team/users/" + target + "/role", func(*env) url.Values { return url.Values{"role": {"finance"}} }, owners},
		{"remove", "/team/users/" + target + "/remove", none, owners},
		{"reissue", "/team/users/" + target + "/reissue", none, owners},
		{"require TOTP", "/team/totp", func(*env) url.Values { return url.Values{"on": {"1"}} }, owners},
		{"review payout", "/payouts/ask", func(e *env) url.Values {
			e.fund(e.shop.AppID, 100_00)
			v := payoutAsk(e.usableDestination(e.shop.AppID), "10.00", "")
			v.Del("confirm")
			return v
		}, payers},
		{"ask payout", "/payouts/ask", func(e *env) url.Values {
			e.fund(e.shop.AppID, 100_00)
			return payoutAsk(e.usableDestination(e.shop.AppID), "10.00", "")
		}, payers},
		{"add endpoint", "/webhooks/endpoints", func(*env) url.Values {
			return url.Values{"url": {"https://93.184.216.36/hooks"}, "types": {"order.expired", "order.paid"}}
		}, developers},
		{"change endpoint", fixedEndpointPath, func(e *env) url.Values {
			e.fixedEndpoint()
			return url.Values{"url": {"https://93.184.216.37/hooks"}, "enabled": {"1"}}
		}, developers},
		{"rotate endpoint secret", fixedEndpointPath + "/rotate", func(e *env) url.Values { e.fixedEndpoint(); return url.Values{"overlap": {"2"}} }, developers},
		{"remove endpoint", fixedEndpointPath + "/remove", func(e *env) url.Values { e.fixedEndpoint(); return url.Values{} }, developers},
		{"test endpoint", fixedEndpointPath + "/test", func(e *env) url.Values { e.fixedEndpoint(); return url.Values{} }, developers},
		{"resend endpoint delivery", fixedEndpointPath + "/resend", func(e *env) url.Values {
			return url.Values{"delivery": {"evt_dead." + e.fixedEndpoint()}}
		}, developers},
		{"replay endpoint", fixedEndpointPath + "/replay", func(e *env) url.Values {
			e.fixedEndpoint()
			return url.Values{"since": {e.now.Format(dateInput)}}
		}, developers},
		{"remove destination", "/payouts/destinations/remove", func(e *env) url.Values {
			return url.Values{"id": {e.usableDestination(e.shop.AppID)}}
		}, owners},
	}
}

// TestEveryRoleOnEveryForm: a person whose role may not use a form gets
// 403 and nothing changes; without the CSRF token even the owner gets 403
// and nothing changes; an allowed person's form works.
func TestEveryRoleOnEveryForm(t *testing.T) {
	e := newEnv(t)
	sessions := map[access.Role]*access.Session{}
	for _, r := range allRoles {
		sessions[r] = e.person(r)
	}
	victim := teamUser(t, e, "victim@shop.test")
	for _, w := range writes(victim) {
		t.Run(w.name, func(t *testing.T) {
			for _, r := range allRoles {
				vals := w.vals(e)
				before := e.fingerprint()
				if !slices.Contains(w.allowed, r) {
					vals.Set("csrf", sessions[r].CSRF)
					res := e.do(sessions[r], http.MethodPost, w.path, vals)
					if res.StatusCode != http.StatusForbidden {
						t.Fatalf("%s: %d, want 403", r, res.StatusCode)
					}
					// Refused by the route (ui.Require), before the use
					// case's own check would answer with its message.
					if b, _ := io.ReadAll(res.Body); strings.Contains(string(b), "your role does not allow this action") {
						t.Fatalf("%s reached the use case: the route does not check the permission", r)
					}
					if e.fingerprint() != before {
						t.Fatalf("%s was refused but something changed", r)
					}
					continue
				}
				if res := e.do(sessions[r], http.MethodPost, w.path, vals); res.StatusCode != http.StatusForbidden {
					t.Fatalf("%s without a CSRF token: %d, want 403", r, res.StatusCode)
				}
				if e.fingerprint() != before {
					t.Fatalf("%s without a CSRF token changed something", r)
				}
				vals.Set("csrf", sessions[r].CSRF)
				res := e.do(sessions[r], http.MethodPost, w.path, vals)
				if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusSeeOther {
					t.Fatalf("%s: %d", r, res.StatusCode)
				}
			}
		})
	}
}

// teamUser is a user of the shop the team forms act on.
func teamUser(t *testing.T, e *env, email string) string {
	t.Helper()
	u, _, err := access.NewTeam(e.accounts).Create(t.Context(), access.CLI(), access.NewUser{Realm: access.RealmMerchant, AppID: e.shop.AppID, Email: email, Role: access.RoleDeveloper})
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

// TestEveryRoleOnEveryPage: each page answers 200 to whom may read it and
// 403 to anyone else; no page shows another merchant's data.
func TestEveryRoleOnEveryPage(t *testing.T) {
	e := newEnv(t)
	theirs := e.deadDelivery(e.other.AppID)
	mine := e.deadDelivery(e.shop.AppID)
	pages := []struct {
		path    string
		allowed []access.Role
	}{
		{"/webhooks", allRoles}, {"/developers", allRoles}, {"/balance", allRoles}, {"/team", allRoles},
		{"/developers/signature", developers}, {"/team/audit", owners}, {"/balance/statement.csv", allRoles},
	}
	for _, r := range allRoles {
		s := e.person(r)
		for _, p := range pages {
			code, body := e.page(s, p.path)
			want := http.StatusForbidden
			if slices.Contains(p.allowed, r) {
				want = http.StatusOK
			}
			if (p.path == "/team/audit" || p.path == "/balance/statement.csv") && want == http.StatusOK {
				want = http.StatusServiceUnavailable // no ClickHouse on this node
			}
			if code != want {
				t.Fatalf("%s on %s: %d, want %d", r, p.path, code, want)
			}
			if code == http.StatusForbidden && strings.Contains(body, "your role does not allow this action") {
				t.Fatalf("%s on %s reached the use case: the route does not check the permission", r, p.path)
			}
			if strings.Contains(body, theirs) || strings.Contains(body, e.other.APIKey) {
				t.Fatalf("%s on %s shows another merchant's data", r, p.path)
			}
			if p.path == "/webhooks" && !strings.Contains(body, mine) {
				t.Fatalf("%s on /webhooks does not list the merchant's dead delivery", r)
			}
		}
	}
}

// TestAnotherMerchantsIDsAre404: an owner naming another merchant's
// delivery or user in a form gets 404 and nothing changes.
func TestAnotherMerchantsIDsAre404(t *testing.T) {
	e := newEnv(t)
	owner := e.person(access.RoleOwner)
	theirDelivery := e.deadDelivery(e.other.AppID)
	theirUser, _, err := access.NewTeam(e.accounts).Create(t.Context(), access.CLI(), access.NewUser{Realm: access.RealmMerchant, AppID: e.other.AppID,
		Email: "owner@other.test", Role: access.RoleOwner})
	if err != nil {
		t.Fatal(err)
	}
	before := e.fingerprint()
	for path, vals := range map[string]url.Values{
		"/webhooks/resend":                         {"paymentId": {theirDelivery}},
		"/team/users/" + theirUser.ID + "/role":    {"role": {"viewer"}},
		"/team/users/" + theirUser.ID + "/remove":  {},
		"/team/users/" + theirUser.ID + "/reissue": {},
	} {
		vals.Set("csrf", owner.CSRF)
		if res := e.do(owner, http.MethodPost, path, vals); res.StatusCode != http.StatusNotFound {
			t.Fatalf("%s: %d, want 404", path, res.StatusCode)
		}
	}
	if e.fingerprint() != before {
		t.Fatal("a form naming another merchant's data changed something")
	}
}

// TestAuditExportStreamsTheMerchantsEntries: the owner's CSV holds its
// merchant's entries only, whatever merchant the query names.
func TestAuditExportStreamsTheMerchantsEntries(t *testing.T) {
	searcher, project := auditSearcher(t)
	e := newEnvWith(t, searcher)
	project(e.rdb)
	owner := e.person(access.RoleOwner)
	l := audit.NewLog(e.rdb)
	for _, appid := range []string{e.shop.AppID, e.other.AppID} {
		if _, err := l.Append(t.Context(), audit.Entry{At: time.Now(), Realm: audit.RealmCLI, Action: "merchant.credit",
			Target: "merchant:" + appid, AppID: appid, Source: "cli"}); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Eventually(t, 30*time.Second, "entries searchable", func() bool {
		p, err := searcher.Search(t.Context(), audit.Filter{Action: "merchant.credit"})
		return err == nil && p.Total == 2
	})
	code, body := e.page(owner, "/team/audit.csv?appid="+e.other.AppID)
	if code != http.StatusOK || !strings.HasPrefix(body, strings.Join(audit.CSVHeader, ",")) ||
		!strings.Contains(body, "merchant:"+e.shop.AppID) || strings.Contains(body, "merchant:"+e.other.AppID) {
		t.Fatalf("export %d:\n%s", code, body)
	}
}
