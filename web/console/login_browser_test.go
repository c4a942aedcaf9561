package console

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/frame/frametest"
)

func TestLoginSetupAndSessionsInBrowser(t *testing.T) {
	e := newEnv(t)
	b := browser.New(t)
	pg := b.NewPage(browser.Wide)

	t.Run("setup link", func(t *testing.T) {
		_, token, err := access.NewTeam(e.acc).Create(context.Background(), access.CLI(), access.NewUser{Realm: access.RealmMerchant, AppID: e.shop,
			Email: "new@shop.test", Role: access.RoleViewer})
		if err != nil {
			t.Fatal(err)
		}
		pg.Go(e.base + "/setup/" + token)
		shoot(t, pg, "setup")
		secret := strings.TrimSpace(pg.Text("[data-secret]"))
		pg.Fill("#password", frametest.Password)
		pg.Fill("#password2", frametest.Password)
		pg.Fill("#code", frametest.Code(t, secret, e.clock.now()))
		pg.Submit("form[data-setup]")
		if n := strings.Count(pg.Text("[data-recovery-codes]"), "-"); n != 10 {
			t.Fatalf("%d recovery codes shown", n)
		}
		shoot(t, pg, "setup-done")
	})

	t.Run("wrong code refused and counted", func(t *testing.T) {
		email := e.users[access.RoleOwner]
		before := logins(t, e, "bad_credentials")
		pg.Go(e.base + "/login")
		shoot(t, pg, "login")
		pg.Fill("#email", email)
		pg.Fill("#password", frametest.Password)
		pg.Fill("#code", frametest.Code(t, e.secret[email], e.clock.now().Add(-5*time.Minute)))
		pg.Submit("form[data-login]")
		if pg.LastStatus() != http.StatusUnauthorized || !strings.Contains(pg.Text("[data-problem]"), "Wrong e-mail, password or code") {
			t.Fatalf("wrong code: %d", pg.LastStatus())
		}
		pg.AllowErrorStatus(http.StatusUnauthorized)
		shoot(t, pg, "login-refused")
		if got := logins(t, e, "bad_credentials"); got != before+1 {
			t.Errorf("refused logins counted %v, want %v", got, before+1)
		}
		if !strings.Contains(e.accessAudit(t), "session.login_failed "+email+" code") {
			t.Errorf("the refusal is not in the audit log:\n%s", e.accessAudit(t))
		}
	})

	t.Run("expired session goes back to login", func(t *testing.T) {
		email := e.users[access.RoleViewer]
		frametest.Login(t, pg, e.base, email, frametest.Password, e.code(t, email))
		pg.Go(e.base + "/orders")
		if pg.LastStatus() != http.StatusOK {
			t.Fatalf("orders: %d", pg.LastStatus())
		}
		e.clock.add(31 * time.Minute)
		pg.Go(e.base + "/orders?status=paid")
		pg.WaitURL("/console/login?next=")
		if !has(pg, "form[data-login]") {
			t.Fatal("no login form after the session expired")
		}
		pg.AssertNoConsoleErrors(t)
	})

	t.Run("language switch", func(t *testing.T) {
		email := e.users[access.RoleFinance]
		frametest.Login(t, pg, e.base, email, frametest.Password, e.code(t, email))
		pg.Go(e.base + "/orders")
		pg.Click(`.langs a[hreflang="zh"]`)
		pg.WaitText("h1", "订单")
		if !strings.HasSuffix(pg.URL(), "/console/orders") {
			t.Errorf("the switch went to %s, not back to the orders", pg.URL())
		}
		shoot(t, pg, "orders-zh")
		pg.Click(`.langs a[hreflang="es"]`)
		pg.WaitText("h1", "Pedidos")
		pg.Click(`.langs a[hreflang="en"]`)
		pg.WaitText("h1", "Orders")
	})
}

// logins is the console logins counter's value for result.
func logins(t *testing.T, e *env, result string) float64 {
	t.Helper()
	mfs, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "gateway_console_logins_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "result" && l.GetValue() == result {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// accessAudit is the accounts' audit entries (their scripts' stream and
// the one failed logins go to), one a line: action email reason.
func (e *env) accessAudit(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, stream := range []string{schema.AuditKey(schema.AccessTag), schema.AuditKey(schema.AuditTag)} {
		msgs, err := e.rdb.XRange(context.Background(), stream, "-", "+").Result()
		if err != nil {
			t.Fatal(err)
		}
		e.lines(&b, msgs)
	}
	return b.String()
}

func (e *env) lines(b *strings.Builder, msgs []redis.XMessage) {
	for _, m := range msgs {
		v := func(k string) string { s, _ := m.Values[k].(string); return s }
		var d map[string]string
		_ = json.Unmarshal([]byte(v("details")), &d)
		b.WriteString(v("action") + " " + v("email") + " " + d["reason"] + "\n")
	}
}
