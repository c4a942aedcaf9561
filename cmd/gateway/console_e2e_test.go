package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/frame/frametest"
)

// TestConsoleEndToEnd drives the merchant console of the real binary: the
// first owner made by `console-user add`, its setup link (password, TOTP
// from the page's secret, recovery codes), a login, an order created
// through the API appearing on the orders page by the live feed, a sandbox
// payment from the order page through the real command side, another
// merchant's order refused, the audit log holding the CLI's and the
// console's actions, and no secret of the person in any log line or metric.
func TestConsoleEndToEnd(t *testing.T) {
	t.Parallel() // mostly waiting, on a database and a server of its own: runs beside the others
	e := &e2e{t: t, bin: gatewayBinary(t), redisURL: testenv.RedisURL(t), chDSN: testenv.ClickHouseDSN(t)}
	e.run("migrate")
	b := browser.New(t)
	var shop, other account
	e.cli(&shop, "merchant", "create", "--name", "shop", "--sandbox", "--json")
	e.cli(&other, "merchant", "create", "--name", "other", "--sandbox", "--json")
	s := e.serve()
	var added struct{ SetupLink string }
	e.cli(&added, "console-user", "add", shop.AppID, "owner@shop.test", "--role", "owner", "--public-url", s.base, "--json")
	if !strings.HasPrefix(added.SetupLink, s.base+"/console/setup/") {
		t.Fatalf("setup link %q", added.SetupLink)
	}
	var users []struct{ Email, Role string }
	e.cli(&users, "console-user", "list", shop.AppID, "--json")
	if len(users) != 1 || users[0].Email != "owner@shop.test" || users[0].Role != "owner" {
		t.Fatalf("console-user list: %+v", users)
	}

	pg := b.NewPage(browser.Wide)
	pg.Go(added.SetupLink)
	secret := strings.TrimSpace(pg.Text("[data-secret]"))
	pg.Fill("#password", frametest.Password)
	pg.Fill("#password2", frametest.Password)
	pg.Fill("#code", frametest.Code(t, secret, time.Now()))
	pg.Submit("form[data-setup]")
	codes := pg.Text("[data-recovery-codes]")
	if strings.Count(codes, "-") != 10 {
		t.Fatalf("recovery codes shown: %q", codes)
	}
	frametest.Login(t, pg, s.base+"/console", "owner@shop.test", frametest.Password, frametest.Code(t, secret, time.Now().Add(30*time.Second)))
	if csp := pg.LastResponseHeaders().Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("console CSP %q", csp)
	}
	var session string
	for _, c := range pg.Cookies() {
		if c.Name == "gw_console" {
			session = c.Value
			if !c.HttpOnly {
				t.Error("the console's session cookie is readable by scripts")
			}
		}
	}

	pg.Go(s.base + "/console/orders")
	// The feed open, so the order below is made after the subscription:
	// one made before it is not the live feed's to show.
	pg.WaitVisible("[data-live-status][data-live-open]")
	hooks := newHookReceiver(t)
	cp := createParams(shop.AppID)
	cp["notify_url"] = hooks.url
	created := s.create(t, cp, shop.APIKey)
	id, _ := created.Data["paymentId"].(string)
	if created.Status != http.StatusOK || id == "" {
		t.Fatalf("create: %d %s", created.Status, created.Raw)
	}
	pg.WaitText("table[data-orders]", id) // by the live feed, no reload
	theirs := s.create(t, createParams(other.AppID), other.APIKey).Data["paymentId"].(string)

	pg.Go(s.base + "/console/orders/" + id)
	pg.Submit(`form[data-action="sandbox-pay"]`)
	pg.WaitText("[data-order-status]", "Paid")
	// The simulated provider's notification, with its verdict, on the timeline.
	if tl := pg.Text("[data-timeline]"); !strings.Contains(tl, "Provider notification") || !strings.Contains(tl, "applied") {
		t.Errorf("timeline after the sandbox payment:\n%s", tl)
	}
	if got := s.order(t, shop.AppID, shop.QueryKey, id); got.Data["status_str"] != "paid" {
		t.Errorf("the API says the order is %v after the console paid it", got.Data["status_str"])
	}
	// The webhook delivered, then resent from the console: the manual
	// attempt appears on the timeline.
	testenv.Eventually(t, 10*time.Second, "the paid webhook", func() bool { return hooks.got(id).Get("status") == "2" })
	testenv.Eventually(t, 10*time.Second, "the delivery on the order page", func() bool {
		pg.Go(s.base + "/console/orders/" + id)
		return strings.Contains(pg.Text("[data-timeline]"), "Paid webhook")
	})
	pg.Submit(`form[data-action="resend"]`)
	pg.WaitText(".flash", "Webhook resend queued")
	testenv.Eventually(t, 10*time.Second, "the resent attempt on the timeline", func() bool {
		pg.Go(s.base + "/console/orders/" + id)
		return strings.Contains(pg.Text("[data-timeline]"), "(resend)")
	})
	// A partial refund through the real command side.
	pg.Fill(`form[data-action="refund"] [name="amount"]`, "10.00")
	pg.Fill(`form[data-action="refund"] [name="reason"]`, "one cup broken")
	pg.Submit(`form[data-action="refund"]`)
	pg.WaitText("[data-confirm-amount]", "10.00 CNY")
	pg.Submit(`form[data-action="refund-confirm"]`)
	pg.WaitText(".flash", "Refund requested")
	if tl := pg.Text("[data-timeline]"); !strings.Contains(tl, "10.00 CNY") || !strings.Contains(tl, "one cup broken") {
		t.Errorf("timeline after the refund:\n%s", tl)
	}
	// 10.00 of it refunded: the order reads so, here and in the list.
	testenv.Eventually(t, 10*time.Second, "the refund's badge", func() bool {
		pg.Go(s.base + "/console/orders/" + id)
		return strings.TrimSpace(pg.Text("[data-order-status]")) == "Partially refunded"
	})
	// A cancel of an open order.
	open := s.create(t, createParams(shop.AppID), shop.APIKey).Data["paymentId"].(string)
	pg.Go(s.base + "/console/orders/" + open)
	pg.Submit(`form[data-action="cancel"]`)
	pg.WaitText("[data-order-status]", "Cancelled")

	pg.Go(s.base + "/console/orders/" + theirs)
	if pg.LastStatus() != http.StatusNotFound {
		t.Errorf("another merchant's order answered %d", pg.LastStatus())
	}
	pg.AllowErrorStatus(http.StatusNotFound)

	actions := auditActions(t, e.redisURL)
	for _, want := range []string{"user.create cli", "user.list cli", "user.setup merchant", "session.login merchant", "order.sandbox_paid merchant owner@shop.test", "order.refund merchant owner@shop.test", "webhook.resend merchant owner@shop.test", "order.cancel merchant owner@shop.test"} {
		if !strings.Contains(actions, want) {
			t.Errorf("audit log lacks %q:\n%s", want, actions)
		}
	}
	token := added.SetupLink[strings.LastIndex(added.SetupLink, "/")+1:]
	metrics := get(t, s.ops+"/metrics")
	for name, v := range map[string]string{"password": frametest.Password, "TOTP secret": secret, "session id": session,
		"setup token": token, "recovery code": strings.Fields(codes)[0]} {
		if v == "" {
			t.Fatalf("no %s to look for", name)
		}
		if strings.Contains(s.logs.String(), v) || strings.Contains(metrics, v) || strings.Contains(actions, v) {
			t.Errorf("the %s is in a log line, a metric or the audit log", name)
		}
	}
}

// auditActions lists every audit entry as "action realm actor-email".
func auditActions(t *testing.T, redisURL string) string {
	t.Helper()
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	var b strings.Builder
	for _, stream := range schema.AuditStreams() {
		msgs, err := rdb.XRange(context.Background(), stream, "-", "+").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			b.WriteString(m.Values["action"].(string) + " " + m.Values["realm"].(string) + " " + m.Values["email"].(string) + " " + m.Values["details"].(string) + "\n")
		}
	}
	return b.String()
}
