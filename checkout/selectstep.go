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
			Limits: v.L.T("select_limits", "Min", bound(v, m.Limits.Min, o.Currency), "Max", bound(v, m.Limits.Max, o.Currency))}
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

func bound(v *view, a schema.Amount, cur string) string {
	if a == 0 {
		return v.L.T("limit_none")
	}
	return a.String() + " " + cur
}
