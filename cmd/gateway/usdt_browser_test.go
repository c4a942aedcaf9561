package main

import (
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/browser"
)

// TestBrowserUSDTReviewStates: in headless Chromium against the real
// binary with the reviewer role, a payer whose hash matches nothing reads
// "not found yet", with until when we keep checking, without reloading by
// hand; an administrator's rejection then shows the administrator's words,
// as text, in the payer's language: a payer is never left guessing.
func TestBrowserUSDTReviewStates(t *testing.T) {
	t.Parallel() // mostly waiting, on a database and a server of its own: runs beside the others
	p := newPayerEnv(t, "GATEWAY_ROLES=command,query,projector,dispatcher,reviewer")
	pg := browser.New(t).NewPage(browser.Narrow)
	id := p.open(t, pg, p.hostedURL("usdt_direct", "50.00", "USD"))
	pg.Click(`input[name=network][value=TRC20]`)
	pg.Submit(`form.choices`)
	pg.WaitVisible(`#txhash`)
	pg.Fill(`#txhash`, strings.Repeat("5e", 32)) // on no chain
	pg.Submit(`form.hash`)
	pg.WaitVisible(`[data-review-state]`)
	// The page reloads itself soon after the reviewer's first check.
	pg.SetTimeout(30 * time.Second)
	pg.WaitText(`[data-review-state="not_found"]`, "We have not found this transaction yet; we keep checking until 20")
	pg.SetTimeout(browser.DefaultTimeout)
	checkPageHeaders(t, pg)
	shoot(t, pg, "usdt-not-found")

	why := `Sent 1 USDT short <b>twice</b>; please pay the exact amount`
	p.e.run("usdt", "reject", id, "--reason", why, "--by", "alice")
	for _, lang := range []struct{ prefix, words, shot string }{
		{"", "The reviewer wrote: “" + why + "”", "usdt-rejected-admin"},
		{"/zh", "审核人员说明：“" + why + "”", "usdt-rejected-admin-zh"},
		{"/es", "El revisor escribió: «" + why + "»", ""},
	} {
		pg.Go(p.s.base + lang.prefix + "/payment/" + id + "/usdt-direct")
		pg.WaitText(`[data-rejected]`, lang.words)
		var bold int
		pg.Eval(`document.querySelectorAll("[data-rejected] b").length`, &bold)
		if bold != 0 {
			t.Errorf("%s: the administrator's text became markup", lang.prefix)
		}
		checkPageHeaders(t, pg)
		if lang.shot != "" {
			shoot(t, pg, lang.shot)
		}
	}
}
