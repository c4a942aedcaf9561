package account

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
)

// TestEndpointAddShowsSecretOnce: a developer adds an endpoint and sees
// its secret on that answer only; the list, the endpoint's page and
// another person's view never carry it.
func TestEndpointAddShowsSecretOnce(t *testing.T) {
	e := newEnv(t)
	dev, viewer := e.person(access.RoleDeveloper), e.person(access.RoleViewer)
	res := e.do(dev, http.MethodPost, "/webhooks/endpoints", url.Values{"csrf": {dev.CSRF},
		"url": {"https://93.184.216.34/hooks"}, "types": {"order.expired", "order.paid"}, "description": {"stock"}})
	b, _ := io.ReadAll(res.Body)
	secret := regexp.MustCompile(`data-secret>(whsec_[^<]+)<`).FindStringSubmatch(string(b))
	if res.StatusCode != http.StatusOK || secret == nil {
		t.Fatalf("add: %d, no secret shown", res.StatusCode)
	}
	eps, err := e.endpoints.List(context.Background(), e.shop.AppID)
	if err != nil || len(eps) != 1 || eps[0].Secret != html.UnescapeString(secret[1]) || len(eps[0].Types) != 2 {
		t.Fatalf("saved %+v %v", eps, err)
	}
	for _, s := range []*access.Session{dev, viewer} {
		for _, path := range []string{"/webhooks", "/webhooks/endpoints/" + eps[0].ID} {
			code, body := e.page(s, path)
			if code != http.StatusOK || strings.Contains(body, secret[1]) || !strings.Contains(body, "93.184.216.34/hooks") {
				t.Fatalf("%s %s: %d, secret shown %v", s.Role, path, code, strings.Contains(body, secret[1]))
			}
		}
	}
}

// TestEndpointPageDeliveries: the endpoint's page lists its deliveries
// newest first with the body sent and each answer; a test event is a
// delivery; a resend and a replay go to the engine, the replay's time read
// in the viewer's zone.
func TestEndpointPageDeliveries(t *testing.T) {
	e := newEnv(t)
	dev := e.person(access.RoleDeveloper)
	if err := e.accounts.SetTimeZone(context.Background(), dev, "Asia/Shanghai"); err != nil {
		t.Fatal(err)
	}
	ep := e.endpoint(e.shop.AppID)
	path := "/webhooks/endpoints/" + ep.ID
	if res := e.do(dev, http.MethodPost, path+"/test", url.Values{"csrf": {dev.CSRF}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("test: %d", res.StatusCode)
	}
	code, body := e.page(dev, path)
	if code != http.StatusOK {
		t.Fatalf("page: %d", code)
	}
	order := regexp.MustCompile(`data-delivery="([^"]+)"`).FindAllStringSubmatch(body, -1)
	var ids []string
	for _, m := range order {
		ids = append(ids, m[1])
	}
	if want := []string{"evt_test." + ep.ID, "evt_dead." + ep.ID, "evt_ok." + ep.ID}; !slices.Equal(ids, want) {
		t.Fatalf("deliveries %v, want %v (newest first)", ids, want)
	}
	for _, s := range []string{`&#34;type&#34;:&#34;order.expired&#34;`, "busy", "Answered 503", "GMT+8"} {
		if !strings.Contains(body, s) {
			t.Fatalf("the page lacks %q", s)
		}
	}
	if res := e.do(dev, http.MethodPost, path+"/resend", url.Values{"csrf": {dev.CSRF}, "delivery": {"evt_dead." + ep.ID}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("resend: %d", res.StatusCode)
	}
	sinceLocal := e.now.In(time.FixedZone("CST", 8*3600)).Format(dateInput)
	res := e.do(dev, http.MethodPost, path+"/replay", url.Values{"csrf": {dev.CSRF}, "since": {sinceLocal}})
	if b, _ := io.ReadAll(res.Body); res.StatusCode != http.StatusOK || !strings.Contains(string(b), "GMT+8") {
		t.Fatalf("replay: %d", res.StatusCode)
	}
	if got := e.engine.Asked(); !slices.Equal(got, []string{"test " + ep.ID, "resend evt_dead." + ep.ID, "replay " + ep.ID}) {
		t.Fatalf("the engine was asked %v", got)
	}
	// The same wall-clock time read as UTC would be 8 hours later, in the
	// future: refused. Read in the viewer's zone it is now.
	early := e.now.Add(-2 * time.Hour).In(time.FixedZone("CST", 8*3600)).Format(dateInput)
	if res := e.do(dev, http.MethodPost, path+"/replay", url.Values{"csrf": {dev.CSRF}, "since": {early}}); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("a replay since before the endpoint: %d, want 400", res.StatusCode)
	}
}

// TestAnotherMerchantsEndpoint: the shop's owner reaches nothing of
// another merchant's endpoint: every page and form answers 404 and
// nothing changes.
func TestAnotherMerchantsEndpoint(t *testing.T) {
	e := newEnv(t)
	owner := e.person(access.RoleOwner)
	theirs := e.endpoint(e.other.AppID)
	path := "/webhooks/endpoints/" + theirs.ID
	if code, _ := e.page(owner, path); code != http.StatusNotFound {
		t.Fatalf("their page: %d, want 404", code)
	}
	for _, sub := range []string{"", "/rotate", "/remove", "/test", "/resend", "/replay"} {
		before := e.fingerprint()
		vals := url.Values{"csrf": {owner.CSRF}, "url": {"https://93.184.216.35/x"}, "delivery": {"evt_dead." + theirs.ID},
			"since": {e.now.Format(dateInput)}}
		if res := e.do(owner, http.MethodPost, path+sub, vals); res.StatusCode != http.StatusNotFound {
			t.Fatalf("POST %s: %d, want 404", sub, res.StatusCode)
		}
		if e.fingerprint() != before {
			t.Fatalf("POST %s changed something", sub)
		}
	}
	if got := e.engine.Asked(); len(got) != 0 {
		t.Fatalf("the engine was asked %v", got)
	}
}

// TestEndpointDisabledBanner: an endpoint the gateway disabled for
// failing shows a banner on the Webhooks page and its own, to every role
// that reads them.
func TestEndpointDisabledBanner(t *testing.T) {
	e := newEnv(t)
	ep := e.endpoint(e.shop.AppID)
	if _, err := e.endpoints.Disable(context.Background(), e.shop.AppID, ep.ID, "failing"); err != nil {
		t.Fatal(err)
	}
	viewer := e.person(access.RoleViewer)
	for _, path := range []string{"/webhooks", "/webhooks/endpoints/" + ep.ID} {
		if code, body := e.page(viewer, path); code != http.StatusOK || !strings.Contains(body, `data-endpoint-disabled="`+ep.ID+`"`) {
			t.Fatalf("%s: %d, no banner", path, code)
		}
	}
}

// TestEndpointFormsByRole: finance and viewer see the endpoints and their
// deliveries but no form that changes them.
func TestEndpointFormsByRole(t *testing.T) {
	e := newEnv(t)
	ep := e.endpoint(e.shop.AppID)
	for _, r := range allRoles {
		s := e.person(r)
		_, list := e.page(s, "/webhooks")
		_, page := e.page(s, "/webhooks/endpoints/"+ep.ID)
		changes := strings.Contains(list, "data-endpoint-add") || strings.Contains(page, "data-endpoint-edit") ||
			strings.Contains(page, "data-endpoint-rotate") || strings.Contains(page, "data-endpoint-replay")
		if changes != slices.Contains(developers, r) {
			t.Fatalf("%s sees the change forms: %v", r, changes)
		}
		if !strings.Contains(page, "evt_dead."+ep.ID) {
			t.Fatalf("%s does not see the deliveries", r)
		}
	}
}
