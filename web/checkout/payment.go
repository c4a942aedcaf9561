package checkout

import (
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/schema"
)

// orderView is the order as a payer sees it: nothing of the merchant's or
// the customer's but the description the merchant wrote for the payer.
type orderView struct {
	ID          string
	Merchant    string // the merchant's display name: whom the payer pays
	Amount      string
	Currency    string
	Description string
	Method      schema.Method
	MethodName  string
	Status      schema.Status
	StatusText  string
	State       string // the status name, for styles and the templates' tests
	Live        bool
	Page        string // this order's payment page, with the language prefix
	ReturnURL   string // return_url with {paymentId} replaced
	QRImage     string
	ProviderURL string
	AutoGo      bool   // just chosen: the script goes on to the provider by itself
	SandboxLink string // sandbox only: the simulated wallet page a scan opens
	Charge      string // what the provider charges, when not the order's own amount
}

func (p *Pages) orderView(v *view, o *schema.Order) *orderView {
	page := v.Prefix + "/payment/" + url.PathEscape(o.ID)
	ov := &orderView{ID: o.ID, Amount: o.Amount.String(), Currency: o.Currency, Description: o.Description,
		Method: o.Method, MethodName: v.L.Method(o.Method), Status: o.Status, Live: o.Status.Live(),
		StatusText: v.L.T("status_" + o.Status.String()), State: o.Status.String(), Page: page, ProviderURL: o.ProviderURL}
	if o.Status.Live() && o.NextAction == schema.NextUSDTReview {
		ov.StatusText = v.L.T("usdt_review_title")
	}
	if o.ReturnURL != "" {
		ov.ReturnURL = strings.ReplaceAll(o.ReturnURL, "{paymentId}", o.ID)
	}
	if o.Method.HasQR() && o.QRPayload != "" {
		ov.QRImage = "/payment/" + url.PathEscape(o.ID) + "/qr.png"
		if o.Sandbox && (strings.HasPrefix(o.QRPayload, "http://") || strings.HasPrefix(o.QRPayload, "https://")) {
			ov.SandboxLink = o.QRPayload
		}
	}
	if o.ChargeCurrency != "" {
		ov.Charge = o.ChargeAmount.String() + " " + o.ChargeCurrency
	}
	return ov
}

// choosing marks a step where the payer still has a choice to make: no
// "waiting for your payment" and no polling, since nothing can be paid
// before the choice; the choice's form brings the next page.
func choosing(v *view) {
	if v.Order != nil && v.Order.Live {
		v.Order.StatusText = v.L.T("status_choose")
	}
}

// pollView tells the page's script where and how often to ask.
type pollView struct {
	URL        string
	IntervalMS int64
	TimeoutMS  int64
	RedirectMS int64
}

func (p *screen) withPoll(v *view) {
	if v.Order == nil || !v.Order.Live {
		return
	}
	v.Poll = &pollView{URL: "/payment/" + url.PathEscape(v.Order.ID) + "/status",
		IntervalMS: p.cfg.PollInterval.Milliseconds(), TimeoutMS: p.cfg.PollTimeout.Milliseconds(),
		RedirectMS: p.cfg.RedirectDelay.Milliseconds()}
}

// payment serves GET /payment/{id}: the step the query names, else the page
// the order's state calls for.
func (p *Pages) payment(c *fiber.Ctx, v *view) error {
	o, err := p.orders.Reads.Order(c.UserContext(), c.Params("paymentId"))
	if err != nil {
		return err
	}
	return p.orderPage(c, v, o)
}

func (p *Pages) orderPage(c *fiber.Ctx, v *view, o *schema.Order) error {
	if err := p.forOrder(c, v, o); err != nil {
		return err
	}
	if !o.Status.Live() {
		return p.result(c, v)
	}
	switch o.NextAction {
	case schema.NextMethodSelect:
		return p.methods.selectPage(c, v, o)
	case schema.NextFiatpspSelect:
		return p.methods.fiatpspPage(c, v, o)
	case schema.NextCryptopspSelect:
		return p.methods.cryptopspPage(c, v, o)
	case schema.NextUSDTDirectPay, schema.NextUSDTReview:
		return p.usdt.usdtOrder(c, v, o)
	case schema.NextBalanceLogin:
		return p.balance.loginFor(c, v, o)
	}
	p.withCSRF(c, v)
	p.withPoll(v)
	v.Title = v.L.T("title")
	switch {
	case v.Order.QRImage != "":
		return p.render(c, fiber.StatusOK, "qr", v)
	case o.ProviderURL != "":
		v.Order.AutoGo = c.Query("go") == "1"
		return p.render(c, fiber.StatusOK, "redirect", v)
	}
	return p.render(c, fiber.StatusOK, "waiting", v)
}

// result is a paid, failed or cancelled order.
func (p *Pages) result(c *fiber.Ctx, v *view) error {
	v.Title = v.L.T("status_" + v.Order.Status.String())
	v.Poll = &pollView{RedirectMS: p.cfg.RedirectDelay.Milliseconds()}
	return p.render(c, fiber.StatusOK, "result", v)
}

// paymentPost serves the forms posted to the payment page: the method
// choice (step=confirm) and the cancel button (step=cancel).
func (p *Pages) paymentPost(c *fiber.Ctx, v *view) error {
	if err := p.checkCSRF(c); err != nil {
		return err
	}
	id := c.Params("paymentId")
	switch c.Query("step") {
	case "confirm":
		o, err := p.orders.Choose.ChooseMethod(c.UserContext(), id, schema.Method(c.FormValue("paymentMethod")))
		p.m.done("choose", err)
		if err != nil {
			return err
		}
		return p.redirect(c, p.next(v, o))
	case "cancel":
		o, err := p.orders.Cancel.Cancel(c.UserContext(), id)
		p.m.done("cancel", err)
		if err != nil {
			return err
		}
		return p.redirect(c, v.Prefix+"/payment/"+url.PathEscape(o.ID))
	}
	return fiber.ErrNotFound
}

// next is where the payer goes once a choice is made: our own page, which
// then shows the next step, the result, or the provider's button — and with
// go=1 its script follows that button at once. Never the provider directly:
// the CSP's form-action 'self' holds for a form's redirects too, and a
// provider's origin is not known when the page is made.
func (p *screen) next(v *view, o *schema.Order) string {
	page := v.Prefix + "/payment/" + url.PathEscape(o.ID)
	if o.ProviderURL != "" && o.Status.Live() {
		return page + "?go=1"
	}
	switch o.NextAction {
	case schema.NextUSDTDirectPay:
		return page + "/usdt-direct"
	case schema.NextBalanceLogin:
		return v.Prefix + "/merchant/login?order=" + url.QueryEscape(o.ID)
	}
	return page
}
