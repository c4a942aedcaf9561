package account

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/audit"
	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/internal/fixture"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/journal"
	"github.com/paygate/gateway/journal/journaltest"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/frame/frametest"
)

func TestMain(m *testing.M) { os.Exit(browser.Main(m)) }

// has reports whether the page holds an element matching sel.
func has(pg *browser.Page, sel string) bool {
	var ok bool
	pg.Eval(fmt.Sprintf(`!!document.querySelector(%q)`, sel), &ok)
	return ok
}

// forge posts a form the page did not offer (a hand-made request of the
// logged-in person), with the page's CSRF token unless withCSRF is false,
// and returns the answer's status.
func forge(t *testing.T, pg *browser.Page, path string, fields map[string]string, withCSRF bool) int {
	t.Helper()
	if withCSRF {
		var tok string
		pg.Eval(`(document.querySelector('input[name="csrf"]') || {}).value || ""`, &tok)
		fields["csrf"] = tok
	}
	return pg.ForgePost(path, fields)
}

// shoot checks the page at 360 and 1280 px: nothing overflows, axe-core
// finds nothing serious, no console error; and saves both screenshots.
func shoot(t *testing.T, pg *browser.Page, name string) {
	t.Helper()
	for _, w := range []int{browser.Narrow, browser.Wide} {
		pg.SetWidth(w)
		pg.Look().CheckNoOverflow(t, "main")
		pg.Look().CheckNoInnerScroll(t, "nav.nav, nav.nav ul")
		pg.Look().CheckA11y(t, name)
		pg.Look().Screenshot("console-" + name)
	}
	pg.AssertNoConsoleErrors(t)
}

// seed gives the shop what the pages show: deliveries, money, users
// and audit entries.
func (e *env) seed() {
	e.t.Helper()
	ctx := context.Background()
	e.deadDelivery(e.shop.AppID)
	e.deadDelivery(e.shop.AppID)
	e.failingDelivery(e.shop.AppID)
	hour := time.Now().Unix() / 3600
	for h := int64(0); h < 24; h++ {
		sh := schema.Shard(h % schema.NumShards)
		e.rdb.HSet(ctx, schema.WebhookRateKey(sh, e.shop.AppID, hour-h), "a", 20+h%5*3, "s", 18+h%5*3-h%3)
	}
	j, err := journal.New(journal.Config{}, e.rdb, nil, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	fixture.PostLedgerMix(e.t, j, e.shop.AppID, e.now.Truncate(24*time.Hour).AddDate(0, 0, -3))
	journaltest.Check(e.t, e.rdb)
	for _, u := range []struct {
		email string
		role  access.Role
	}{{"finance@shop.test", access.RoleFinance}, {"new.hire@shop.test", access.RoleViewer}} {
		if _, _, err := access.NewTeam(e.accounts).Create(ctx, access.CLI(), access.NewUser{Realm: access.RealmMerchant, AppID: e.shop.AppID, Email: u.email, Role: u.role}); err != nil {
			e.t.Fatal(err)
		}
	}
}

// auditSearcher is a searcher over this test's ClickHouse database, with
// the audit projector copying entries into it until the test ends.
func auditSearcher(t *testing.T) (*audit.Searcher, func(rdb *redis.Client)) {
	t.Helper()
	ctx := context.Background()
	dsn := testenv.ClickHouseDSN(t)
	if _, err := platform.Migrate(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	ch, err := platform.OpenClickHouse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Close() })
	start := func(rdb *redis.Client) {
		pctx, cancel := context.WithCancel(ctx)
		p, err := audit.NewProjector(audit.ProjectorConfig{Wait: 50 * time.Millisecond, ClaimIdle: time.Hour}, rdb, ch,
			prometheus.NewRegistry(), slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- p.Run(pctx) }()
		t.Cleanup(func() { cancel(); <-done })
	}
	return audit.NewSearcher(ch), start
}

// TestPagesInBrowserAsOwner clicks through the four pages as an owner:
// every action works, and each page is clean at 360 and 1280 px.
func TestPagesInBrowserAsOwner(t *testing.T) {
	searcher, project := auditSearcher(t)
	e := newEnvWith(t, searcher)
	project(e.rdb)
	e.seed()
	secret, _ := frametest.Enrol(t, e.accounts, access.NewUser{Realm: access.RealmMerchant, AppID: e.shop.AppID, Email: "owner@shop.test", Role: access.RoleOwner}, e.now)
	pg := browser.New(t).NewPage(browser.Wide)
	frametest.Login(t, pg, e.url, "owner@shop.test", frametest.Password, frametest.Code(t, secret, e.now.Add(30*time.Second)))

	pg.Go(e.url + "/webhooks")
	if n := strings.Count(pg.Text("table[data-deliveries]"), "Answered 503 instead of 200"); n != 2 {
		t.Fatalf("webhooks page says %d dead deliveries' last outcome, want 2", n)
	}
	shoot(t, pg, "webhooks")
	pg.Click(`tr[data-detail] summary`)
	pg.WaitVisible(`tr[data-detail] [data-attempts]`)
	shoot(t, pg, "webhooks-detail")
	pg.Click("table[data-deliveries] tbody tr:first-child button")
	pg.WaitText(".flash", "queued")
	pg.Submit("form[data-bulk]")
	pg.WaitText(".flash", "2 dead webhooks queued")

	pg.Go(e.url + "/developers")
	shoot(t, pg, "developers")
	pg.Click(`[data-sdks] a[href$="/sdk/php"]`)
	pg.WaitVisible(`[data-sdk-readme="php"]`)
	shoot(t, pg, "developers-sdk-php")
	pg.Go(e.url + "/developers")
	pg.Submit(`form[data-rotate="api-key"]`)
	pg.WaitVisible("[data-new-secret]")
	if a, _ := e.merchants.Get(context.Background(), e.shop.AppID); pg.Text("[data-secret]") != a.APIKey {
		t.Fatal("the page does not show the new API key")
	}
	shoot(t, pg, "developers-rotated")
	// Through the grace webhooks stay MD5-signed with the old key, as the
	// page says, until the merchant confirms its receiver has the new one.
	if !has(pg, `[data-new-secret] [data-hook-key="old"]`) {
		t.Fatal("the rotation's answer does not say webhooks stay on the old key")
	}
	pg.Go(e.url + "/developers")
	if rotated, _ := e.merchants.Get(context.Background(), e.shop.AppID); rotated.WebhookKey(time.Now()) != rotated.PrevAPIKey ||
		!has(pg, `[data-webhook-key="old"]`) {
		t.Fatal("during the grace webhooks should be signed with the old key, and the page say so")
	}
	shoot(t, pg, "developers-grace")
	pg.Submit("form[data-confirm-webhook-key]")
	pg.WaitText(".flash", "new API key")
	if confirmed, _ := e.merchants.Get(context.Background(), e.shop.AppID); confirmed.WebhookKey(time.Now()) != confirmed.APIKey ||
		!has(pg, `[data-webhook-key="new"]`) || has(pg, "form[data-confirm-webhook-key]") {
		t.Fatal("after the confirmation webhooks should be signed with the new key, and the page say so")
	}
	shoot(t, pg, "developers-confirmed")
	// The query key's rotation takes the grace asked on the page: the old
	// key reads through it and not after.
	oldQuery, _ := e.merchants.Get(context.Background(), e.shop.AppID)
	pg.Go(e.url + "/developers")
	pg.Fill("#grace-query", "2")
	pg.Submit(`form[data-rotate="query-key"]`)
	pg.WaitVisible("[data-new-secret]")
	newQuery, _ := e.merchants.Get(context.Background(), e.shop.AppID)
	if pg.Text("[data-secret]") != newQuery.QueryKey || newQuery.QueryKey == oldQuery.QueryKey {
		t.Fatal("the page does not show the new query key")
	}
	if !newQuery.QueryKeyMatches(oldQuery.QueryKey, time.Now().Add(time.Hour)) ||
		newQuery.QueryKeyMatches(oldQuery.QueryKey, time.Now().Add(3*time.Hour)) {
		t.Fatalf("the old query key should read for the 2 hours asked, until %s", newQuery.PrevQueryTill)
	}
	pg.Fill("#callback", "http://127.0.0.1:9/hook")
	pg.Submit("form[data-callback]")
	if pg.LastStatus() != http.StatusBadRequest || !strings.Contains(pg.Text("main"), "non-public") {
		t.Fatalf("a loopback callback: %d %q", pg.LastStatus(), pg.Text("main"))
	}
	pg.AllowErrorStatus(http.StatusBadRequest)

	pg.Go(e.url + "/developers/signature")
	pg.Fill("#params", "appid="+e.shop.AppID+"\namount=10.00\ncurrency=USD\nsign=0123")
	pg.Submit("form[data-signature]")
	if got := pg.Text("[data-signed]"); got != "amount=10.00&appid="+e.shop.AppID+"&currency=USD{key}" {
		t.Fatalf("signed string %q", got)
	}
	shoot(t, pg, "signature")

	pg.Go(e.url + "/balance")
	if !strings.Contains(pg.Text("[data-balances]"), "145.85") {
		t.Fatalf("balance page: %q", pg.Text("main"))
	}
	shoot(t, pg, "balance-no-clickhouse")

	pg.Go(e.url + "/team")
	pg.Fill("#inv-email", "support@shop.test")
	pg.Submit("form[data-invite]")
	pg.WaitVisible("[data-setup-link]")
	if !strings.Contains(pg.Text("[data-setup-link]"), e.url+"/setup/") {
		t.Fatalf("no setup link: %q", pg.Text("[data-setup-link]"))
	}
	shoot(t, pg, "team")
	// A user whose second factor locked: the notice on every page, the
	// badge and the owner's Unlock.
	frametest.Enrol(t, e.accounts, access.NewUser{Realm: access.RealmMerchant, AppID: e.shop.AppID, Email: "guessed@shop.test", Role: access.RoleFinance}, e.now)
	frametest.LockSecondFactor(t, e.rdb, access.RealmMerchant, "guessed@shop.test")
	pg.Go(e.url + "/team")
	pg.WaitVisible("[data-locks]")
	if !has(pg, `tr[data-user="guessed@shop.test"] [data-locked]`) || !has(pg, `tr[data-user="guessed@shop.test"] form[data-unlock-form]`) {
		t.Fatal("the Team page does not mark the locked user or offer its unlock")
	}
	shoot(t, pg, "team-locked")
	pg.Submit(`tr[data-user="guessed@shop.test"] form[data-unlock-form]`)
	pg.WaitText(".flash", "work again")
	if has(pg, "[data-locks]") || has(pg, "[data-locked]") {
		t.Fatal("the notice or the badge stays after the unlock")
	}

	testenv.Eventually(t, 30*time.Second, "audit entries searchable", func() bool {
		p, err := searcher.Search(context.Background(), audit.Filter{AppID: e.shop.AppID})
		return err == nil && p.Total >= 4
	})
	testenv.Eventually(t, 30*time.Second, "the confirmation's audit entry searchable", func() bool {
		p, err := searcher.Search(context.Background(), audit.Filter{AppID: e.shop.AppID, Action: "merchant.confirm_webhook_key"})
		return err == nil && p.Total == 1
	})
	pg.Go(e.url + "/team/audit")
	if text := pg.Text("table[data-audit]"); !strings.Contains(text, "merchant.rotate_api_key") || !strings.Contains(text, "user.create") ||
		!strings.Contains(text, "merchant.confirm_webhook_key") {
		t.Fatalf("audit page: %q", text)
	}
	shoot(t, pg, "audit")

	for _, lang := range []string{"zh", "es"} {
		pg.Go(e.url + "/lang/" + lang + "?next=" + "/console/webhooks")
		pg.Look().CheckA11y(t, "webhooks-"+lang)
		pg.Look().Screenshot("console-webhooks-" + lang)
	}
}

// TestPagesInBrowserAsViewer: a viewer reads every page, is offered no
// form, and a hand-made write is refused with 403 and changes nothing; so
// is the owner's own form without its CSRF token.
func TestPagesInBrowserAsViewer(t *testing.T) {
	e := newEnv(t)
	e.seed()
	dead := e.deadDelivery(e.shop.AppID)
	secret, _ := frametest.Enrol(t, e.accounts, access.NewUser{Realm: access.RealmMerchant, AppID: e.shop.AppID, Email: "viewer@shop.test", Role: access.RoleViewer}, e.now)
	pg := browser.New(t).NewPage(browser.Narrow)
	frametest.Login(t, pg, e.url, "viewer@shop.test", frametest.Password, frametest.Code(t, secret, e.now.Add(30*time.Second)))
	for _, p := range []string{"/webhooks", "/developers", "/developers/sdk/php", "/developers/sdk/go", "/balance", "/team"} {
		pg.Go(e.url + p)
		if pg.LastStatus() != http.StatusOK || has(pg, "main form[method=post]") {
			t.Fatalf("%s: %d, a form offered: %v", p, pg.LastStatus(), has(pg, "main form[method=post]"))
		}
		pg.Look().CheckA11y(t, "viewer"+p)
	}
	pg.Look().Screenshot("console-team-viewer")
	before := e.fingerprint()
	for path, fields := range map[string]map[string]string{
		"/webhooks/resend":                {"paymentId": dead},
		"/developers/rotate/api-key":      {},
		"/developers/confirm-webhook-key": {},
		"/developers/callback":            {"callback": "https://93.184.216.34/x"},
		"/team/invite":                    {"email": "x@shop.test", "role": "owner"},
		"/team/totp":                      {"on": "1"},
	} {
		pg.Go(e.url + "/webhooks")
		if st := forge(t, pg, base+path, fields, true); st != http.StatusForbidden {
			t.Fatalf("viewer's %s: %d, want 403", path, st)
		}
		pg.Go(e.url + "/webhooks")
		if st := forge(t, pg, base+path, fields, false); st != http.StatusForbidden {
			t.Fatalf("viewer's %s without CSRF: %d, want 403", path, st)
		}
	}
	if e.fingerprint() != before {
		t.Fatal("a refused write changed something")
	}
}

// TestPagesInBrowserAsDeveloperAndFinance: each role is offered exactly
// the forms its permissions allow, and a forged form of the others is 403.
func TestPagesInBrowserAsDeveloperAndFinance(t *testing.T) {
	e := newEnv(t)
	e.seed()
	b := browser.New(t)
	for _, tt := range []struct {
		role    access.Role
		offered map[string]bool // form selector on its page → offered
	}{
		{access.RoleDeveloper, map[string]bool{"/webhooks form[data-bulk]": true, `/developers form[data-rotate="api-key"]`: true,
			"/developers form[data-callback]": true, "/team form[data-invite]": false, "/team form[data-totp-form]": false}},
		{access.RoleFinance, map[string]bool{"/webhooks form[data-bulk]": false, `/developers form[data-rotate="api-key"]`: false,
			"/developers form[data-callback]": false, "/team form[data-invite]": false}},
	} {
		t.Run(string(tt.role), func(t *testing.T) {
			email := string(tt.role) + "-b@shop.test"
			secret, _ := frametest.Enrol(t, e.accounts, access.NewUser{Realm: access.RealmMerchant, AppID: e.shop.AppID, Email: email, Role: tt.role}, e.now)
			pg := b.NewPage(browser.Wide)
			frametest.Login(t, pg, e.url, email, frametest.Password, frametest.Code(t, secret, e.now.Add(30*time.Second)))
			for where, want := range tt.offered {
				path, sel, _ := strings.Cut(where, " ")
				pg.Go(e.url + path)
				if got := has(pg, sel); got != want {
					t.Fatalf("%s: %s offered %v, want %v", path, sel, got, want)
				}
			}
			pg.Go(e.url + "/team")
			pg.Look().CheckA11y(t, string(tt.role)+"-team")
			before := e.fingerprint()
			if st := forge(t, pg, base+"/team/totp", map[string]string{"on": "1"}, true); st != http.StatusForbidden {
				t.Fatalf("%s's forged TOTP policy: %d, want 403", tt.role, st)
			}
			if e.fingerprint() != before {
				t.Fatal("a refused write changed something")
			}
		})
	}
}
