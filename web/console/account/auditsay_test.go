package account

import (
	"context"
	"encoding/json"
	"html"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/web/frame"
)

// catalog is the pages' messages in lang (the frame's are not needed).
func catalog(t *testing.T, lang string) *frame.Catalog {
	t.Helper()
	b, err := os.ReadFile("locales/" + lang + ".json")
	if err != nil {
		t.Fatal(err)
	}
	c := &frame.Catalog{Lang: lang, Msg: map[string]string{}}
	if err := json.Unmarshal(b, &c.Msg); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAuditSentences: each entry a merchant's log holds reads as a
// sentence with the change; the reason follows; an entry lacking what its
// sentence names, or an action without one, reads plainly; nothing is
// left as a {placeholder} in any language.
func TestAuditSentences(t *testing.T) {
	en := catalog(t, "en")
	ana := func(action, target string, d map[string]string) audit.Entry {
		return audit.Entry{ActorEmail: "ana@shop.test", Realm: audit.RealmMerchant, Role: "finance", Action: action, Target: target, Details: d}
	}
	for _, tt := range []struct {
		name string
		e    audit.Entry
		want string
	}{
		{"refund with its reason", ana("order.refund", "order:P2026A", map[string]string{"amount": "7.00", "currency": "CNY", "reason": "damaged goods"}),
			"ana@shop.test refunded 7.00 CNY of order P2026A: damaged goods"},
		{"one resend", ana("webhook.resend", "order:P2026A", nil), "ana@shop.test resent the webhook of P2026A"},
		{"a bulk resend", ana("webhook.resend", "merchant:1001", map[string]string{"kind": "dead", "count": "12", "note": "events from a to b"}),
			"ana@shop.test resent 12 dead webhooks: events from a to b"},
		{"role change", ana("user.set_role", "user:u7", map[string]string{"role": "developer", "old_role": "viewer"}),
			"ana@shop.test changed the role of user u7 from viewer to developer"},
		{"the command line", audit.Entry{Realm: audit.RealmCLI, ActorID: "root", Action: "order.cancel", Target: "order:P2026B"},
			"The command line cancelled order P2026B"},
		{"a detail missing", ana("order.refund", "order:P2026A", map[string]string{"amount": "7.00"}), "ana@shop.test: order.refund P2026A"},
		{"no sentence of its own", ana("something.new", "order:P2026C", map[string]string{"note": "why"}), "ana@shop.test: something.new P2026C: why"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := auditSentence(en, tt.e); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			for _, lang := range frame.Langs {
				if got := auditSentence(catalog(t, lang), tt.e); strings.Contains(got, "{") || strings.HasPrefix(got, "audit_") {
					t.Fatalf("%s: %q", lang, got)
				}
			}
		})
	}
}

// TestAuditLogInSentences: the owner's audit log says each entry as a
// sentence, with the details the operators' view shows, and a bulk resend
// is one webhook.resend entry with its count.
func TestAuditLogInSentences(t *testing.T) {
	searcher, project := auditSearcher(t)
	e := newEnvWith(t, searcher)
	project(e.rdb)
	owner := e.person(access.RoleOwner)
	start := time.Now().Add(-time.Second)
	e.deadDelivery(e.shop.AppID)
	if code, _ := e.post(owner, "/webhooks/resend-dead", url.Values{"from": {e.now.Add(-48 * time.Hour).Format(dateInput)},
		"to": {e.now.Add(time.Hour).Format(dateInput)}}); code != 200 {
		t.Fatalf("bulk resend: %d", code)
	}
	if code, _ := e.post(owner, "/developers/rotate/query-key", url.Values{"grace": {"2"}}); code != 200 {
		t.Fatalf("rotate: %d", code)
	}
	// The package's tests share ClickHouse and the first merchant's appid:
	// wait for this test's own entries.
	for _, action := range []string{"webhook.resend", "merchant.rotate_query_key"} {
		testenv.Eventually(t, 30*time.Second, action+" searchable", func() bool {
			p, err := searcher.Search(context.Background(), audit.Filter{AppID: e.shop.AppID, Action: action, From: start})
			return err == nil && p.Total >= 1
		})
	}
	_, page := e.page(owner, "/team/audit")
	page = html.UnescapeString(page)
	for _, want := range []string{
		"owner@shop.test resent 1 dead webhooks: events from ",
		"count=1 kind=dead note=events from ",
		"owner@shop.test rotated the query key (the old one works 2h0m0s more)",
		"grace=2h0m0s",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the audit log does not say %q", want)
		}
	}
	if strings.Contains(page, "resend_dead") {
		t.Error("a bulk resend has an action name of its own")
	}
}
