package checkout

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/schema"
)

// methodChoice is one method on the select page, worded.
type methodChoice struct {
	Method  schema.Method
	Name    string
	Limits  string
	Enabled bool
	Reason  string
}

// selectPage is the select flow's first step: every method the order may
// use with its limits; one the amount falls outside is shown disabled with
// the reason, so the payer sees why rather than a missing option.
func (p *Pages) selectPage(c *fiber.Ctx, v *view, o *schema.Order) error {
	opts, err := p.orders.Methods(c.UserContext(), o)
	if err != nil {
		return err
	}
	choices := make([]methodChoice, len(opts))
	for i, m := range opts {
		choices[i] = methodChoice{Method: m.Method, Name: v.L.Method(m.Method), Enabled: m.Enabled,
			Limits: limitsText(v.L, m.Limits, o.Currency)}
		switch m.Reason {
		case "below_min":
			choices[i].Reason = v.L.T("reason_below_min", "Bound", m.Limits.Min.String()+" "+o.Currency)
		case "above_max":
			choices[i].Reason = v.L.T("reason_above_max", "Bound", m.Limits.Max.String()+" "+o.Currency)
		}
	}
	p.withCSRF(c, v)
	p.withPoll(v)
	v.Title, v.Data = v.L.T("select_title"), choices
	return p.render(c, fiber.StatusOK, "select", v)
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
