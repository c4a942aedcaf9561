package admin

import (
	"context"
	"fmt"
	"testing"

	"github.com/paygate/gateway/internal/browser"
	"github.com/paygate/gateway/merchant"
)

// filterShape is how a filter form lies: labels beside their control
// instead of above it, and the first row's controls and buttons whose
// bottoms are not level.
type filterShape struct {
	Forms, Beside int
	Bottoms       []int
}

const filterJS = `(() => {
	const out = {Forms: 0, Beside: 0, Bottoms: []};
	for (const f of document.querySelectorAll("form.filters")) {
		out.Forms++;
		for (const l of f.querySelectorAll("label[for]")) {
			const c = document.getElementById(l.htmlFor);
			if (c && c.getBoundingClientRect().top < l.getBoundingClientRect().bottom - 1) out.Beside++;
		}
		const items = Array.from(f.querySelectorAll(".field > input:not([type=checkbox]), .field > select, .actions .btn"));
		if (!items.length) { out.Beside++; continue; }
		const top = Math.min(...items.map((c) => c.getBoundingClientRect().top));
		const row = items.filter((c) => c.getBoundingClientRect().top < top + 30);
		const bottoms = [...new Set(row.map((c) => Math.round(c.getBoundingClientRect().bottom)))];
		if (bottoms.length > 1 && Math.max(...bottoms) - Math.min(...bottoms) > 2) out.Bottoms.push(...bottoms);
	}
	return out })()`

// TestBrowserOperatorPolish: the filter forms' labels sit above their
// controls and each row's controls and buttons are level (at 1280 px,
// where they share a row); receiving addresses and hashes never wrap (at
// 360 px); the demo payer is not listed among the merchants.
func TestBrowserOperatorPolish(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	payer, err := merchant.NewStore(e.rdb).Create(context.Background(), merchant.NewAccount{Name: "Demo payer", Sandbox: true, PayerOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	base := e.serve(t)
	b := browser.New(t)
	pg := b.NewPage(browser.Wide)
	e.browserLogin(t, pg, base, "ann@ops.test")
	for _, path := range []string{"/exceptions", "/audit", "/income", "/merchants", "/merchants/" + e.appid + "/view/orders"} {
		t.Run("filters "+path, func(t *testing.T) {
			pg.Go(base + path)
			var s filterShape
			pg.Eval(filterJS, &s)
			if s.Forms == 0 || s.Beside > 0 || len(s.Bottoms) > 0 {
				t.Errorf("%d filter forms: %d labels beside their control, first-row bottoms %v", s.Forms, s.Beside, s.Bottoms)
			}
		})
	}
	t.Run("addresses never wrap", func(t *testing.T) {
		pg.Go(base + "/settings")
		var ok bool
		pg.Eval(`(document.getElementById("nname").value = "ERC20") === "ERC20"`, &ok)
		// 42 characters: wider than a 360 px screen's card has room for.
		pg.Fill("#addresses", "0x52908400098527886e0f7030069857d2e4169ee7, 0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae")
		pg.Fill("#confirmations", "20")
		pg.Submit("form[data-network]")
		pg.WaitVisible("[data-addresses] code.addr")
		pg.SetWidth(browser.Narrow)
		var broken []string
		pg.Eval(`Array.from(document.querySelectorAll("code.addr")).filter((c) => c.getClientRects().length !== 1 ||
			c.getBoundingClientRect().height > 1.5 * (parseFloat(getComputedStyle(c).lineHeight) || 20) || c.title !== c.textContent).map((c) => c.textContent)`, &broken)
		if len(broken) > 0 {
			t.Errorf("addresses broken across lines or without their whole text in the title: %v", broken)
		}
		shoot(t, pg, "admin-settings-addresses")
		pg.SetWidth(browser.Wide)
	})
	t.Run("the demo payer is not a merchant", func(t *testing.T) {
		pg.Go(base + "/merchants")
		var asMerchant, asPayer bool
		pg.Eval(fmt.Sprintf(`!!document.querySelector('[data-merchants] [data-merchant=%q]')`, payer.AppID), &asMerchant)
		pg.Eval(fmt.Sprintf(`!!document.querySelector('[data-payers] [data-payer=%q]')`, payer.AppID), &asPayer)
		if asMerchant || !asPayer {
			t.Errorf("demo payer listed as a merchant %v, among the payer accounts %v", asMerchant, asPayer)
		}
		shoot(t, pg, "admin-merchants-payers")
	})
	pg.AssertNoConsoleErrors(t)
}
