package simkit

import (
	"context"
	"html/template"
	"io"

	"github.com/gofiber/fiber/v2"
)

// SimPage is a simulated provider page: what the payer would see at the
// provider, reduced to the payment and a Pay and a Fail button.
type SimPage struct {
	Provider    string // the family's neutral name
	OrderID     string // our order's id, as the provider knows it
	Merchant    string // whom the payer pays; SendPage looks it up by OrderID
	Amount      string
	Currency    string
	Description string
	Action      string            // where the form posts the tester's choice
	Hidden      map[string]string // fields the form carries back
	Done        string            // set once settled: what happened
}

// MerchantNamer names the merchant of one of our orders, "" when unknown.
type MerchantNamer func(ctx context.Context, orderID string) string

const simMerchantsLocal = "provider.simMerchants"

// WithMerchantNames is the middleware of the simulators' routes that lets
// their pages name the merchant, as a real provider's page names whom the
// payer pays. The simulators know our order ids, not our merchants.
func WithMerchantNames(fn MerchantNamer) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Locals(simMerchantsLocal, fn)
		return c.Next()
	}
}

// SimMerchant is the name WithMerchantNames gives for orderID, or "".
func SimMerchant(c *fiber.Ctx, orderID string) string {
	fn, _ := c.Locals(simMerchantsLocal).(MerchantNamer)
	if fn == nil || orderID == "" {
		return ""
	}
	return fn(c.UserContext(), orderID)
}

var simPage = template.Must(template.New("sim").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>{{.Provider}} (sandbox)</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
.box{border:1px solid #bbb;border-radius:8px;padding:1.25rem;overflow-wrap:anywhere;word-break:break-word}
h1{font-size:1.15rem;margin:.2rem 0 .6rem}.amt{font-size:1.6rem;font-weight:600;margin:.4rem 0}
dl{display:grid;grid-template-columns:auto minmax(0,1fr);gap:.2rem .8rem;font-size:.9rem}dt{color:#555}dd{margin:0}
button{font-size:1rem;padding:.6rem 1.2rem;margin:.4rem .4rem 0 0;border-radius:6px;border:1px solid #555;cursor:pointer}
button:focus-visible{outline:3px solid #2b6cd4;outline-offset:2px}
.pay{background:#0b6b2f;color:#fff}.fail{background:#fff;color:#8b0000}.note{color:#555;font-size:.9rem}</style></head>
<body><main class="box"><p class="note">Simulated provider: {{.Provider}} — sandbox, no real money.</p>
<h1>{{if .Merchant}}Pay <span data-merchant>{{.Merchant}}</span>{{else}}Payment{{end}}</h1>
<p class="amt">{{.Amount}} {{.Currency}}</p>{{with .Description}}<p data-description>{{.}}</p>{{end}}
{{with .OrderID}}<dl><dt>Order</dt><dd><code>{{.}}</code></dd></dl>{{end}}
{{if .Done}}<p role="status">{{.Done}}</p>{{else}}<form method="post" action="{{.Action}}">
{{range $k, $v := .Hidden}}<input type="hidden" name="{{$k}}" value="{{$v}}">{{end}}
<button class="pay" name="outcome" value="pay">Pay</button><button class="fail" name="outcome" value="fail">Fail</button>
</form>{{end}}</main></body></html>`))

// Render writes the page.
func (p SimPage) Render(w io.Writer) error { return simPage.Execute(w, p) }
