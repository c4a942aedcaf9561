package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/browser"
)

// TestBrowserPayerPages clicks through every payer flow in headless
// Chromium against the real binary, with SPEC.md's polling figures.
func TestBrowserPayerPages(t *testing.T) {
	t.Parallel() // mostly waiting, on a database and a server of its own: runs beside the others
	p := newPayerEnv(t, "GATEWAY_ROLES=command,query,projector,dispatcher,reviewer")

	t.Run("QR page, paid on the phone, back at the shop within 6 s", func(t *testing.T) {
		pg := browser.New(t).NewPage(browser.Narrow)
		id := p.open(t, pg, p.hostedURL("wallet_a", "88.00", "CNY", "description", `<script>alert("x")</script> Tea 'n' cake`))
		pg.WaitVisible(`img[src$="/qr.png"]`)
		if got := pg.Text(".desc"); got != `<script>alert("x")</script> Tea 'n' cake` {
			t.Errorf("description shows %q, want it as text", got)
		}
		var alerts int
		pg.Eval(`document.querySelectorAll(".desc script").length`, &alerts)
		if alerts != 0 {
			t.Error("the description became a script element")
		}
		shoot(t, pg, "qr")
		// A refresh of the same address with the same clientOrderId shows the same order.
		start := time.Now()
		if r := p.s.sandbox(t, p.m.AppID, p.m.QueryKey, id, "pay"); r.Status != 200 {
			t.Fatalf("sandbox pay: %+v", r)
		}
		backAtShop(t, pg, id, 6*time.Second)
		if d := time.Since(start); d > 6*time.Second {
			t.Errorf("back at the shop after %v, want ≤ 6 s", d)
		}
		p.paid(t, id)
	})

	t.Run("refresh with the same clientOrderId shows the same order", func(t *testing.T) {
		pg := browser.New(t).NewPage(browser.Wide)
		u := p.hostedURL("wallet_b", "12.00", "USD", "clientOrderId", "refresh-1")
		first := p.open(t, pg, u)
		second := p.open(t, pg, u)
		if first == "" || first != second {
			t.Fatalf("refresh showed order %q, then %q", first, second)
		}
	})

	t.Run("select, wallet_a, paid", func(t *testing.T) {
		pg := browser.New(t).NewPage(browser.Narrow)
		id := p.open(t, pg, p.hostedURL("select", "30.00", "USD"))
		pg.WaitVisible(`input[value=wallet_a]`)
		noWaiting(t, pg)
		shoot(t, pg, "select")
		pg.Click(`input[value=wallet_a]`)
		pg.Submit(`form.choices`)
		pg.WaitVisible(`img[src$="/qr.png"]`)
		checkPageHeaders(t, pg)
		p.s.sandbox(t, p.m.AppID, p.m.QueryKey, id, "pay")
		backAtShop(t, pg, id, 8*time.Second)
		p.paid(t, id)
		if m := p.hooks.got(id).Get("paymentMethod"); m != "wallet_a" {
			t.Errorf("webhook paymentMethod %q, want the method used", m)
		}
	})

	t.Run("select, fiatpsp, a system with its FX quote, paid", func(t *testing.T) {
		pg := browser.New(t).NewPage(browser.Narrow)
		id := p.open(t, pg, p.hostedURL("select", "100.00", "USD", "allowedPaymentMethods", "fiatpsp,cryptopsp"))
		pg.Click(`input[value=fiatpsp]`)
		pg.Submit(`form.choices`)
		pg.WaitText("form.choices", "92.00 EUR")
		checkPageHeaders(t, pg)
		noWaiting(t, pg)
		// Only USD to EUR has a rate here: the systems in other currencies
		// (RUB, ...) are not offered, and nothing says why.
		var offered []string
		pg.Eval(`[...document.querySelectorAll("input[name=fiatpspSystemId]")].map(i => i.value)`, &offered)
		if strings.Join(offered, ",") != "7,9" || strings.Contains(pg.Text("main"), "exchange rate") {
			t.Errorf("fiatpsp offers %v, want only USD system 7 and EUR system 9, and no word of rates", offered)
		}
		shoot(t, pg, "fiatpsp")
		pg.Click(`input[name=fiatpspSystemId][value="9"]`)
		pg.Submit(`form.choices`) // our page, whose script goes on to the provider's
		pg.WaitVisible(`button[value=pay]`)
		simulatedPage(t, pg, "sim-fiatpsp")
		pg.Click(`button[value=pay]`)
		backAtShop(t, pg, id, 12*time.Second)
		p.paid(t, id)
	})

	t.Run("select, cryptopsp: below the minimum refused, above it paid", func(t *testing.T) {
		pg := browser.New(t).NewPage(browser.Narrow)
		small := p.open(t, pg, p.hostedURL("select", "5.00", "USD", "allowedPaymentMethods", "cryptopsp"))
		pg.Click(`input[value=cryptopsp]`)
		pg.Submit(`form.choices`)
		pg.WaitVisible(`input[name=pay_currency][value=btc]`)
		noWaiting(t, pg)
		if txt := pg.Text("form.choices"); !strings.Contains(txt, "USDT (TRC20)") || strings.Contains(txt, "usdttrc20") {
			t.Errorf("cryptocurrencies read %q, want USDT (TRC20), not the provider's code", txt)
		}
		var disabled bool
		pg.Eval(`document.querySelector('input[name=pay_currency][value=btc]').disabled`, &disabled)
		if !disabled {
			t.Error("btc below its minimum is offered")
		}
		shoot(t, pg, "cryptopsp-below")
		// Forcing the choice anyway is refused with a page, nothing changed.
		pg.Eval(`(() => { const i = document.querySelector('input[name=pay_currency][value=btc]'); i.disabled = false; i.checked = true; return true })()`, new(bool))
		pg.Submit(`form.choices`)
		pg.WaitText("[data-error]", "below")
		pg.AllowErrorStatus(http.StatusBadRequest) // the refusal is the point
		if txt := pg.Text("main"); strings.Contains(txt, " btc") {
			t.Errorf("the refusal names the provider's code: %q", txt)
		}
		shoot(t, pg, "refused-form")
		if st := p.s.order(t, p.m.AppID, p.m.QueryKey, small).Data; st["nextAction"] != "cryptopsp_select" {
			t.Errorf("refused choice changed the order: %+v", st)
		}

		id := p.open(t, pg, p.hostedURL("select", "150.00", "USD", "allowedPaymentMethods", "cryptopsp"))
		pg.Click(`input[value=cryptopsp]`)
		pg.Submit(`form.choices`)
		pg.Click(`input[name=pay_currency][value=btc]`)
		pg.Submit(`form.choices`)
		pg.WaitVisible(`button[value=pay]`)
		simulatedPage(t, pg, "sim-cryptopsp")
		if d := pg.Text("[data-description]"); !strings.HasPrefix(d, "Pay ") || !strings.HasSuffix(d, " BTC") {
			t.Errorf("invoice reads %q, want Pay <amount> BTC and nothing dangling", d)
		}
		pg.Click(`button[value=pay]`)
		backAtShop(t, pg, id, 12*time.Second)
		p.paid(t, id)
	})

	t.Run("usdt_direct: network, simulated transfer, hash, under review, approved by the reviewer, paid", func(t *testing.T) {
		pg := browser.New(t).NewPage(browser.Narrow)
		id := p.open(t, pg, p.hostedURL("usdt_direct", "50.00", "USD"))
		pg.WaitVisible(`input[name=network][value=TRC20]`)
		noWaiting(t, pg)
		shoot(t, pg, "usdt-network")
		pg.Click(`input[name=network][value=TRC20]`)
		pg.Submit(`form.choices`)
		pg.WaitVisible(`#usdt-address`)
		pg.WaitVisible(`button[data-copy]`) // the script showed the copy buttons
		amount := pg.Text("#usdt-amount")
		if !strings.HasPrefix(amount, "50.00") || len(amount) != len("50.000000") {
			t.Errorf("payable amount %q", amount)
		}
		shoot(t, pg, "usdt-pay")
		pg.Fill(`#txhash`, "0x"+strings.Repeat("ab", 32))
		pg.Submit(`form.hash`)
		pg.WaitText("[data-error]", "not valid")
		pg.AllowErrorStatus(http.StatusBadRequest) // the refusal is the point
		pg.Go(p.s.base + "/payment/" + id + "/usdt-direct")
		// The sandbox's wallet: a transfer on the simulated chain, its hash filled in.
		pg.Submit(`form.simulate`)
		var hash string
		pg.Eval(`document.querySelector('#txhash').value`, &hash)
		if len(hash) != 64 {
			t.Fatalf("simulated hash %q", hash)
		}
		pg.Submit(`form.hash`)
		// The reviewer finds the transfer on the simulated chain and approves
		// it, on a busy machine sometimes before this test reads the review
		// page: then the payer is back at the shop already.
		if underReview(t, pg, hash) {
			checkPageHeaders(t, pg)
			shoot(t, pg, "usdt-review")
		}
		backAtShop(t, pg, id, 8*time.Second)
		p.paid(t, id)
	})

	t.Run("balance: login, confirm, paid, both balances right", func(t *testing.T) {
		var payer account
		p.e.cli(&payer, "merchant", "create", "--name", "payer", "--sandbox", "--json")
		p.e.stdin("correct horse battery", "merchant", "set-password", payer.AppID)
		p.e.cli(nil, "merchant", "credit", payer.AppID, "--currency", "USD", "--amount", "100.00", "--json")
		pg := browser.New(t).NewPage(browser.Narrow)
		id := p.open(t, pg, p.hostedURL("select", "40.00", "USD"))
		pg.Click(`input[value=balance]`)
		pg.Submit(`form.choices`)
		pg.WaitVisible(`#password`)
		noWaiting(t, pg)
		if l := pg.Text(`label[for=appid]`); l != "Account" {
			t.Errorf("login asks for %q, want Account", l)
		}
		pg.WaitText("[data-demo-payer]", "make run")
		shoot(t, pg, "login")
		pg.Fill(`#appid`, payer.AppID)
		pg.Fill(`#password`, "wrong password!")
		pg.Submit(`form.login`)
		pg.WaitText("[data-problem]", "Wrong account or password")
		pg.AllowErrorStatus(http.StatusUnauthorized) // the refusal is the point
		pg.Fill(`#password`, "correct horse battery")
		pg.Submit(`form.login`)
		pg.WaitText("button[data-pay]", "40.00 USD")
		checkPageHeaders(t, pg)
		shoot(t, pg, "balance-confirm")
		pg.Click(`button[data-pay]`)
		backAtShop(t, pg, id, 8*time.Second)
		p.paid(t, id)
		want := map[string]string{payer.AppID: "60.00", p.m.AppID: "40.00"}
		for appid, bal := range want {
			var show struct {
				Balances map[string]string `json:"balances"`
			}
			p.e.cli(&show, "merchant", "show", appid, "--json")
			if show.Balances["USD"] != bal {
				t.Errorf("%s USD balance %v, want %s", appid, show.Balances, bal)
			}
		}
	})

	t.Run("keyboard only: select a method, open the wallet from the QR page, pay", func(t *testing.T) {
		pg := browser.New(t).NewPage(browser.Narrow)
		id := p.open(t, pg, p.hostedURL("select", "25.00", "USD", "allowedPaymentMethods", "wallet_b,wallet_a"))
		pg.TabTo(`input[name=paymentMethod]`, 20)
		for range 5 { // arrow keys move through a radio group and check
			var v string
			pg.Eval(`document.activeElement.value`, &v)
			if v == "wallet_a" {
				break
			}
			pg.Press(browser.KeyDown)
		}
		pg.Press(browser.KeySpace)
		pg.TabTo(`form.choices button[type=submit]`, 5)
		pg.Press(browser.KeyEnter)
		pg.WaitVisible(`img[src$="/qr.png"]`)
		pg.TabTo(`[data-sandbox-wallet]`, 10)
		wallet := pg.Opened(func() { pg.Press(browser.KeyEnter) })
		wallet.WaitVisible(`button[value=pay]`)
		simulatedPage(t, wallet, "sim-wallet-a")
		wallet.TabTo(`button[value=pay]`, 10)
		wallet.Press(browser.KeyEnter)
		wallet.WaitText(`[role=status]`, "Paid")
		backAtShop(t, pg, id, 8*time.Second)
		p.paid(t, id)
	})

	t.Run("refused create: the checkout's look, detail folded, the way back only for the merchant's own request", func(t *testing.T) {
		pg := browser.New(t).NewPage(browser.Narrow)
		forged := strings.Replace(p.hostedURL("wallet_a", "10.00", "CNY", "return_url", "https://evil.example/phish"), "sign=", "sign=0", 1)
		pg.Go(forged)
		if st := pg.LastStatus(); st != http.StatusUnauthorized {
			t.Errorf("forged request answered %d, want 401", st)
		}
		pg.AllowErrorStatus(http.StatusUnauthorized)
		checkPageHeaders(t, pg)
		pg.WaitText("[data-error]", "nothing was charged")
		var k string
		pg.Eval(`document.querySelector("[data-error-kind]").textContent`, &k)
		if k != "invalid_sign" {
			t.Errorf("developer detail %q, want invalid_sign", k)
		}
		var open, shop bool
		pg.Eval(`document.querySelector("details.tech").open`, &open)
		// The folded detail may quote the string we signed (a sandbox
		// merchant's invalid_sign), return_url included: as text, never as a
		// link or a redirect.
		pg.Eval(`!!document.querySelector("[data-shop]") || !!document.querySelector('a[href*="evil.example"], form[action*="evil.example"], meta[http-equiv="refresh"]')`, &shop)
		if open || shop {
			t.Errorf("detail shown unfolded (%v), or a way back to the unsigned return_url offered (%v)", open, shop)
		}
		shoot(t, pg, "create-error")
		// The merchant's own request, refused for its amount: back to its site.
		pg.Go(p.hostedURL("wallet_a", "99999.00", "CNY"))
		pg.AllowErrorStatus(pg.LastStatus())
		checkPageHeaders(t, pg)
		var back string
		pg.Eval(`document.querySelector("[data-shop]").getAttribute("href")`, &back)
		if back != p.shop.srv.URL+"/" {
			t.Errorf("way back %q, want the shop's site %s/", back, p.shop.srv.URL)
		}
		pg.Click(`[data-shop]`)
		pg.WaitText("#back", "/")
	})

	t.Run("cancel", func(t *testing.T) {
		pg := browser.New(t).NewPage(browser.Narrow)
		id := p.open(t, pg, p.hostedURL("wallet_a", "9.99", "CNY"))
		pg.Click(`form.cancel button`)
		pg.WaitText(".result.bad h1", "cancelled")
		shoot(t, pg, "cancelled")
		if st := p.s.order(t, p.m.AppID, p.m.QueryKey, id).Data["status"]; st != 4.0 {
			t.Errorf("status %v, want 4 (cancelled)", st)
		}
	})

	t.Run("zh and es", func(t *testing.T) {
		pg := browser.New(t).NewPage(browser.Narrow)
		p.open(t, pg, p.hostedURL("select", "20.00", "USD", "lang", "zh"))
		pg.WaitText("legend h1", "选择支付方式")
		shoot(t, pg, "select-zh")
		id := p.open(t, pg, p.hostedURL("wallet_a", "20.00", "CNY"))
		pg.Go(p.s.base + "/es/payment/" + id)
		pg.WaitText("figcaption", "Escanee este código")
		checkPageHeaders(t, pg)
		shoot(t, pg, "qr-es")
		pg.Go(p.s.base + "/xx/payment/" + id)
		pg.AllowErrorStatus(http.StatusNotFound) // an unknown language is no page
	})
}

// TestBrowserPollingStops: with the polling time-out shortened, the page
// stops asking, says so, and "check again" picks the payment up.
func TestBrowserPollingStops(t *testing.T) {
	t.Parallel() // mostly waiting, on a database and a server of its own: runs beside the others
	// The deployment also names wallet_a for its payers (GATEWAY_METHOD_NAMES).
	p := newPayerEnv(t, "GATEWAY_PAGE_POLL_INTERVAL=300ms", "GATEWAY_PAGE_POLL_TIMEOUT=2s",
		`GATEWAY_METHOD_NAMES={"en": {"wallet_a": "Alipay"}}`)
	pg := browser.New(t).NewPage(browser.Narrow)
	id := p.open(t, pg, p.hostedURL("wallet_a", "15.00", "CNY"))
	if got := pg.Text("figcaption"); !strings.Contains(got, "Scan this code with Alipay") {
		t.Errorf("QR caption %q: the deployment's method name is not used", got)
	}
	pg.WaitVisible(`[data-state=timeout]`)
	shoot(t, pg, "poll-stopped")
	p.s.sandbox(t, p.m.AppID, p.m.QueryKey, id, "pay")
	time.Sleep(time.Second)
	if strings.Contains(pg.URL(), "/return/") {
		t.Fatal("the page kept polling after its time-out")
	}
	pg.Click(`[data-check-again]`)
	backAtShop(t, pg, id, 5*time.Second)
}
