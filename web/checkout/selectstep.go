package checkout

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/schema"
)

// choice is one option of a choosing page (a method, a payment system, a
// cryptocurrency), worded: Detail is what it costs or allows, Why is why a
// disabled one cannot be chosen.
type choice struct {
	Value   string
	Name    string
	Detail  string
	Why     string
	Enabled bool
}

// choiceForm is a choosing page's form: the select step and the two
// providers' second steps are one template.
type choiceForm struct {
	Action  string
	Field   string
	Title   string
	Hidden  map[string]string
	Choices []choice
}

// choose renders a choosing page.
func (p *methodSteps) choose(c *fiber.Ctx, v *view, f choiceForm) error {
	p.withCSRF(c, v)
	choosing(v)
	v.Title, v.Data = f.Title, f
	return p.render(c, fiber.StatusOK, "choose", v)
}

// selectPage is the select flow's first step: every method the order may
// use with its limits; one the amount falls outside is shown disabled with
// the reason, so the payer sees why rather than a missing option.
func (p *methodSteps) selectPage(c *fiber.Ctx, v *view, o *schema.Order) error {
	opts, err := p.orders.Choose.Methods(c.UserContext(), o)
	if err != nil {
		return err
	}
	choices := make([]choice, len(opts))
	for i, m := range opts {
		choices[i] = choice{Value: string(m.Method), Name: v.L.Method(m.Method), Enabled: m.Enabled,
			Detail: limitsText(v.L, m.Limits, o.Currency)}
		switch m.Reason {
		case "below_min":
			choices[i].Why = v.L.T("reason_below_min", "Bound", m.Limits.Min.String()+" "+o.Currency)
		case "above_max":
			choices[i].Why = v.L.T("reason_above_max", "Bound", m.Limits.Max.String()+" "+o.Currency)
		}
	}
	return p.choose(c, v, choiceForm{Action: v.Order.Page + "?step=confirm", Field: "paymentMethod",
		Title: v.L.T("select_title"), Choices: choices})
}

// limitsText words a method's bounds: both, one side, or none.
func limitsText(l *Catalog, lim schema.AmountLimits, cur string) string {
	min, max := lim.Min.String(), lim.Max.String()
	switch {
	case lim.Min > 0 && lim.Max > 0:
		return l.T("limits_both", "Min", min, "Max", max, "Currency", cur)
	case lim.Min > 0:
		return l.T("limits_min", "Min", min, "Currency", cur)
	case lim.Max > 0:
		return l.T("limits_max", "Max", max, "Currency", cur)
	}
	return l.T("limits_none")
}
