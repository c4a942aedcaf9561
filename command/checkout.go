package command

import (
	"errors"
	"html/template"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// SandboxCheckout is the simulated provider page sandbox orders are sent to:
// a tester pays or fails the order there, and the outcome takes the same
// Settle path a provider's notification will. Live orders are never served.
type SandboxCheckout struct {
	store  *Store
	settle *Settle
}

// NewSandboxCheckout wires the simulated provider page.
func NewSandboxCheckout(store *Store, settle *Settle) *SandboxCheckout {
	return &SandboxCheckout{store: store, settle: settle}
}

func (s *SandboxCheckout) order(c *fiber.Ctx) (*schema.Order, error) {
	platform.WantHTMLErrors(c)
	id := c.Params("paymentId")
	o, err := s.store.Get(c.UserContext(), id)
	if errors.Is(err, ErrOrderNotFound) || (err == nil && !o.Sandbox) {
		return nil, platform.Errorf(platform.KindNotFound, "order %s not found", id)
	}
	return o, err
}

// Page shows the order with Pay and Fail buttons.
func (s *SandboxCheckout) Page(c *fiber.Ctx) error {
	o, err := s.order(c)
	if err != nil {
		return err
	}
	c.Type("html", "utf-8")
	return checkoutPage.Execute(c.Response().BodyWriter(), checkoutView{Order: o, Status: o.Status.String()})
}

// Submit takes the tester's choice, then sends the payer on to the
// merchant's return_url when there is one.
func (s *SandboxCheckout) Submit(c *fiber.Ctx) error {
	o, err := s.order(c)
	if err != nil {
		return err
	}
	to := schema.StatusFailed
	if c.FormValue("outcome") == "pay" {
		to = schema.StatusPaid
	}
	out, err := s.settle.Move(c.UserContext(), o.ID, to)
	if err != nil {
		return err
	}
	if o.ReturnURL != "" {
		return c.Redirect(strings.ReplaceAll(o.ReturnURL, "{paymentId}", o.ID), fiber.StatusSeeOther)
	}
	c.Type("html", "utf-8")
	return checkoutPage.Execute(c.Response().BodyWriter(), checkoutView{Order: out.Order, Status: out.Order.Status.String(), Done: true})
}

type checkoutView struct {
	Order  *schema.Order
	Status string
	Done   bool
}

var checkoutPage = template.Must(template.New("checkout").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sandbox checkout</title>
<style>body{font-family:system-ui,sans-serif;max-width:30rem;margin:3rem auto;padding:0 1rem;color:#222}
.banner{background:#fff3cd;padding:.5rem .8rem;border-radius:.3rem}dl{display:grid;grid-template-columns:auto 1fr;gap:.3rem 1rem}
button{font-size:1rem;padding:.6rem 1.4rem;margin-right:.6rem;border-radius:.3rem;border:1px solid #888;cursor:pointer}
.pay{background:#1f7a3a;color:#fff;border-color:#1f7a3a}</style></head>
<body><p class="banner">Sandbox: no real money moves here.</p>
<h1>Checkout</h1>
<dl><dt>Order</dt><dd>{{.Order.ID}}</dd><dt>Amount</dt><dd>{{.Order.Amount}} {{.Order.Currency}}</dd>
<dt>Method</dt><dd>{{.Order.Method}}</dd><dt>Status</dt><dd id="status">{{.Status}}</dd></dl>
{{if .Done}}<p>The order is now <strong>{{.Status}}</strong>.</p>
{{else if .Order.Status.Live}}<form method="post"><button class="pay" name="outcome" value="pay">Pay</button><button name="outcome" value="fail">Fail</button></form>
{{end}}</body></html>
`))
