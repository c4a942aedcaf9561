package admin

import (
	"context"
	"testing"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/internal/browser"
)

// TestBrowserChannels: the admin reads the channels (a breaker's reason
// and a keyword with markup shown as text), closes an open breaker with a
// reason and changes a weight through the forms (screenshots at 360 and
// 1280 px, axe clean); the auditor reads the page with no form, and its
// forged change (with its own CSRF token) is refused with 403, nothing
// changed.
func TestBrowserChannels(t *testing.T) {
	e := newEnv(t)
	e.hostile(t)
	base := e.serve(t)
	b := browser.New(t)
	ctx := context.Background()
	breaker := func() channel.Breaker {
		st := channel.NewStore(e.rdb)
		br, err := st.Breaker(ctx, altRef)
		if err != nil {
			t.Fatal(err)
		}
		return br
	}
	t.Run("auditor reads, may not change", func(t *testing.T) {
		pg := b.NewPage(browser.Wide)
		e.browserLogin(t, pg, base, "al@ops.test")
		pg.Go(base + "/channels")
		pg.WaitVisible(`[data-channel="wallet_a.alt"] [data-reason]`)
		if got := pg.Text(`[data-channel="wallet_a.alt"] [data-reason]`); got != `<script>alert("r")</script>` {
			t.Fatalf("reason shown as %q", got)
		}
		var offered bool
		pg.Eval(`document.querySelector("[data-channel-set], [data-channel-breaker], [data-channel-keywords], [data-channel-mode]") !== null`, &offered)
		if offered {
			t.Fatal("a form is offered to the auditor")
		}
		shoot(t, pg, "admin-channels-auditor")
		before := e.state(t)
		forge(t, pg, base+"/channels/breaker", map[string]string{"ref": "wallet_a.alt", "to": "close", "reason": "forged"}, true)
		pg.AllowErrorStatus(403)
		if e.state(t) != before || breaker().State != channel.Open {
			t.Fatal("a refused breaker change changed Redis")
		}
	})
	t.Run("admin closes a breaker and sets a weight", func(t *testing.T) {
		pg := b.NewPage(browser.Narrow)
		e.browserLogin(t, pg, base, "ann@ops.test")
		pg.Go(base + "/channels")
		pg.WaitVisible(`[data-keywords]`)
		shoot(t, pg, "admin-channels")
		pg.Click(`[data-channel-edit="wallet_a.alt"] summary`)
		shoot(t, pg, "admin-channels-edit")
		pg.Fill(`[data-channel-edit="wallet_a.alt"] [data-channel-breaker] input[name="reason"]`, "provider lifted the restriction")
		pg.Submit(`[data-channel-edit="wallet_a.alt"] [data-channel-breaker]`)
		pg.WaitVisible(".flash")
		if br := breaker(); br.State != channel.Closed || br.By != "op:ann@ops.test" {
			t.Fatalf("breaker %+v", br)
		}
		pg.Click(`[data-channel-edit="wallet_a.alt"] summary`)
		pg.Fill(`[data-channel-edit="wallet_a.alt"] input[name="weight"]`, "9")
		pg.Submit(`[data-channel-edit="wallet_a.alt"] [data-channel-set]`)
		pg.WaitVisible(".flash")
		dir := channel.NewDirectory(e.rdb, 0, nil)
		if err := dir.Load(ctx); err != nil || dir.Now().SettingsOf(altRef).Weight != 9 {
			t.Fatalf("weight %d (%v)", dir.Now().SettingsOf(altRef).Weight, err)
		}
		pg.WaitText(`[data-channel="wallet_a.alt"] [data-state]`, "closed")
	})
}
