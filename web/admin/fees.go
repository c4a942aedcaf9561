package admin

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/fees"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/schema"
)

// feesData is the Fees page: the operator's defaults, the merchants'
// overrides and, for who may set one, the choices of the form.
type feesData struct {
	Defaults, Overrides []feeRow
	Methods             []schema.Method
	Currencies          []string
}

// feeRow is a schedule as the page shows it: the percentage, and the
// amounts as decimals (Max "" for none).
type feeRow struct {
	AppID, Method, Currency string
	Pct, Fixed, Min, Max    string
}

func newFeeRow(s fees.Schedule) feeRow {
	r := feeRow{AppID: s.AppID, Method: string(s.Method), Currency: s.Currency,
		Pct: strconv.FormatFloat(float64(s.Fee.Bps)/100, 'f', 2, 64) + "%", Fixed: s.Fee.Fixed.String(), Min: s.Fee.Min.String()}
	if s.Fee.Max != 0 {
		r.Max = s.Fee.Max.String()
	}
	return r
}

// feesPage lists every schedule; the set and clear forms are offered to
// who may use them (fees.write), and the use case checks the role again.
func (c *Console) feesPage(ctx *fiber.Ctx) error {
	all, err := c.d.Fees.List(ctx.UserContext(), c.ui.Actor(ctx))
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	d := feesData{Currencies: feeCurrencies()}
	for _, m := range schema.AllMethods() {
		if m.Selectable() {
			d.Methods = append(d.Methods, m)
		}
	}
	for _, s := range all {
		if s.AppID == "" {
			d.Defaults = append(d.Defaults, newFeeRow(s))
		} else {
			d.Overrides = append(d.Overrides, newFeeRow(s))
		}
	}
	return c.page(ctx, "fees", "title_fees", d)
}

// feeCurrencies are the currencies any payment method takes, in the
// method table's order.
func feeCurrencies() []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range schema.AllMethods() {
		for _, cur := range m.Currencies() {
			if m.Selectable() && !seen[cur] {
				seen[cur] = true
				out = append(out, cur)
			}
		}
	}
	return out
}

// feeChange is the posted target (and, for a set, the schedule) as typed:
// the use case parses and refuses it.
func feeChange(ctx *fiber.Ctx) operator.FeeChange {
	return operator.FeeChange{AppID: form(ctx, "merchant"), Method: form(ctx, "method"), Currency: form(ctx, "currency"),
		Input: fees.Input{Bps: form(ctx, "bps"), Fixed: form(ctx, "fixed"), Min: form(ctx, "min"), Max: form(ctx, "max")}}
}

func (c *Console) setFee(ctx *fiber.Ctx) error {
	_, err := c.d.Fees.Set(ctx.UserContext(), c.ui.Actor(ctx), feeChange(ctx))
	return c.after(ctx, err, "/fees", "fee_set")
}

func (c *Console) clearFee(ctx *fiber.Ctx) error {
	err := c.d.Fees.Clear(ctx.UserContext(), c.ui.Actor(ctx), feeChange(ctx))
	return c.after(ctx, err, "/fees", "fee_cleared")
}
