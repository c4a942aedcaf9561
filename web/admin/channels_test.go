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
	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/schema"
)

// testChannels are the console's configured channels: two per method in
// both modes, as the demo has.
type testChannels struct{}

func (testChannels) Channels(m schema.Method, _ bool) []string {
	if m == schema.MethodWalletA || m == schema.MethodWalletB {
		return []string{"alt", "default"}
	}
	return nil
}

var altRef = channel.Ref{Method: schema.MethodWalletA, ID: "alt"}

// hostile puts operator text with markup where the page shows it: a
// breaker's reason and a keyword.
func (e *env) hostile(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	st := channel.NewStore(e.rdb)
	cli := audit.Entry{At: time.Now(), ActorID: "root", Realm: audit.RealmCLI, Source: "cli"}
	if err := st.SetBreakerByHand(ctx, altRef, channel.Open, `<script>alert("r")</script>`, "cli:root", time.Now(), cli); err != nil {
		t.Fatal(err)
	}
	cli.Action = "channel.keywords"
	if err := st.SetKeywords(ctx, []string{`<img src=x onerror=alert(1)>`, "account restricted"}, cli); err != nil {
		t.Fatal(err)
	}
}

func (e *env) page(t *testing.T, path string, s *access.Session) string {
	t.Helper()
	res := e.do(t, get(path, s))
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %s", path, res.StatusCode, body)
	}
	return string(body)
}

// TestChannelsPageShowsOperatorTextEscaped: a breaker reason and a keyword
// holding markup are shown as text to every role; support and the auditor
// read the page with no form, the admin gets the forms.
func TestChannelsPageShowsOperatorTextEscaped(t *testing.T) {
	e := newEnv(t)
	e.hostile(t)
	for _, who := range []struct {
		email string
		forms bool
	}{{"ann@ops.test", true}, {"sam@ops.test", false}, {"al@ops.test", false}} {
		t.Run(who.email, func(t *testing.T) {
			body := e.page(t, "/admin/channels", e.session(t, access.RealmOperator, who.email))
			if strings.Contains(body, `<script>alert`) || strings.Contains(body, `<img src=x`) {
				t.Fatal("operator text reached the page as markup")
			}
			if !strings.Contains(body, `&lt;script&gt;alert(&#34;r&#34;)&lt;/script&gt;`) || !strings.Contains(body, `&lt;img src=x onerror=alert(1)&gt;`) {
				t.Fatal("the reason or the keyword is not shown")
			}
			if !strings.Contains(body, `data-channel="wallet_a.alt"`) || !strings.Contains(body, `data-channel="sandbox.wallet_b.default"`) {
				t.Fatal("a configured channel is missing")
			}
			if got := strings.Contains(body, "data-channel-set") || strings.Contains(body, "data-channel-keywords") || strings.Contains(body, "data-channel-breaker"); got != who.forms {
				t.Fatalf("forms offered: %v, want %v", got, who.forms)
			}
		})
	}
}

// TestAdminChangesChannels: each form changes what it says, with one
// operator audit entry naming the admin; a form without the session's
// CSRF token is refused and changes nothing; a bad value is a 400 with
// nothing changed.
func TestAdminChangesChannels(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	admin := e.session(t, access.RealmOperator, "ann@ops.test")
	before := e.state(t)
	if res := e.do(t, post("/admin/channels/set", admin, url.Values{"ref": {"wallet_a.alt"}, "weight": {"7"}})); res.StatusCode != http.StatusForbidden {
		t.Fatalf("no CSRF token: %d, want 403", res.StatusCode)
	}
	for name, vals := range map[string]url.Values{
		"a weight over the bound":  {"ref": {"wallet_a.alt"}, "weight": {"5000"}},
		"an id with markup":        {"ref": {"wallet_a.<b>"}, "weight": {"2"}},
		"an over-precise amount":   {"ref": {"wallet_a.alt"}, "weight": {"2"}, "min": {"0.001"}},
		"an unknown zone":          {"ref": {"wallet_a.alt"}, "weight": {"2"}, "tz": {"Mars/Olympus"}},
		"a breaker with no reason": {"ref": {"wallet_a.alt"}, "to": {"open"}},
	} {
		path := "/admin/channels/set"
		if vals.Get("to") != "" {
			path = "/admin/channels/breaker"
		}
		vals.Set("csrf", admin.CSRF)
		if res := e.do(t, post(path, admin, vals)); res.StatusCode != http.StatusBadRequest {
			t.Fatalf("%s: %d, want 400", name, res.StatusCode)
		}
	}
	if e.state(t) != before {
		t.Fatal("a refused form changed Redis")
	}
	for _, w := range []struct {
		path string
		vals url.Values
	}{
		{"/admin/channels/set", url.Values{"ref": {"wallet_a.alt"}, "weight": {"7"}, "priority": {"2"}, "daily_count": {"10"}, "daily_amount": {"500"},
			"tz": {"Asia/Dhaka"}, "serve": {"group"}, "group": {"vip"}, "cost": {"120:0.30"}}},
		{"/admin/channels/state", url.Values{"ref": {"wallet_a.alt"}, "to": {"maintenance_on"}}},
		{"/admin/channels/breaker", url.Values{"ref": {"wallet_a.alt"}, "to": {"open"}, "reason": {"provider audit"}}},
		{"/admin/channels/mode", url.Values{"method": {"sandbox.wallet_a"}, "mode": {"round_robin"}}},
		{"/admin/channels/keywords", url.Values{"words": {"account restricted\n\n账户受限\n"}}},
		{"/admin/channels/pin", url.Values{"merchant": {e.appid}, "method": {"wallet_a"}, "ids": {"alt, default"}}},
	} {
		w.vals.Set("csrf", admin.CSRF)
		res := e.do(t, post(w.path, admin, w.vals))
		if res.StatusCode != http.StatusSeeOther {
			body, _ := io.ReadAll(res.Body)
			t.Fatalf("%s: %d %s", w.path, res.StatusCode, body)
		}
	}
	dir := channel.NewDirectory(e.rdb, 0, nil)
	if err := dir.Load(ctx); err != nil {
		t.Fatal(err)
	}
	snap := dir.Now()
	s, b := snap.SettingsOf(altRef), snap.BreakerOf(altRef)
	if s.Weight != 7 || s.Priority != 2 || s.DailyCount != 10 || s.DailyAmount != 500_00 || s.TimeZone != "Asia/Dhaka" || s.Group != "vip" ||
		s.Cost != (schema.FeeSchedule{Bps: 120, Fixed: 30}) || !s.Maintenance || b.State != channel.Open || b.By != "op:ann@ops.test" {
		t.Fatalf("settings %+v, breaker %+v", s, b)
	}
	if snap.ModeOf(true, schema.MethodWalletA) != channel.ModeRoundRobin || len(snap.Keywords) != 2 || len(snap.PinOf(e.appid, false, schema.MethodWalletA)) != 2 {
		t.Fatalf("mode %s, keywords %q, pin %v", snap.ModeOf(true, schema.MethodWalletA), snap.Keywords, snap.PinOf(e.appid, false, schema.MethodWalletA))
	}
	rows, err := audit.Read(ctx, e.rdb, schema.AuditKey("{merchants}"), 100)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for _, r := range rows {
		if strings.HasPrefix(r.Action, "channel.") {
			n++
			if r.Realm != audit.RealmOperator || r.ActorEmail != "ann@ops.test" || r.Role != "admin" {
				t.Fatalf("entry %+v", r)
			}
		}
	}
	if n != 6 {
		t.Fatalf("%d channel audit entries, want 6", n)
	}
}

// TestOrderPageShowsTheChannel: the operator's view of an order names the
// channel it went to (the default one for an order of before channels);
// a method the gateway serves itself shows none.
func TestOrderPageShowsTheChannel(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	now := time.Now()
	tests := []struct {
		name    string
		channel string
		method  schema.Method
		want    string
	}{
		{"a second channel", "alt", schema.MethodWalletA, "<code>sandbox.wallet_a.alt</code>"},
		{"before channels", "", schema.MethodWalletB, "<code>sandbox.wallet_b.default</code>"},
		{"the gateway's own", "", schema.MethodUSDTDirect, ""},
	}
	admin := e.session(t, access.RealmOperator, "ann@ops.test")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &schema.Order{ID: schema.NewOrderID(now, schema.RandomShard()), AppID: e.appid, Sandbox: true, Amount: 10_00, Currency: "CNY",
				Method: tt.method, Channel: tt.channel, Status: schema.StatusReady, CreatedAt: now, UpdatedAt: now, Version: 1}
			if _, _, err := e.store.Create(ctx, o); err != nil {
				t.Fatal(err)
			}
			body := e.page(t, "/admin/merchants/"+e.appid+"/view/orders/"+o.ID, admin)
			got := strings.Contains(body, "data-order-channel")
			if got != (tt.want != "") || (tt.want != "" && !strings.Contains(body, tt.want)) {
				t.Fatalf("channel shown %v, want %q", got, tt.want)
			}
		})
	}
}
