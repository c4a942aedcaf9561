package checkout

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/schema"
)

// fiatpspPage lists the provider's payment systems, each with its FX quote
// where its currency is not the order's; the form posts to
// /api/fiatpsp/confirm.
func (p *methodSteps) fiatpspPage(c *fiber.Ctx, v *view, o *schema.Order) error {
	systems, err := p.orders.Steps.FiatpspSystems(c.UserContext(), o)
	if err != nil {
		return err
	}
	choices := make([]choice, 0, len(systems))
	for _, s := range systems {
		if !s.Available {
			// An operator's gap, not the payer's business: the payer sees
			// the systems that can be paid, the operator the reason.
			p.m.hidden.WithLabelValues("fiatpsp", "no_rate").Inc()
			p.log.Warn("fiatpsp system not offered: no exchange rate is set", "order", o.ID,
				"system", s.ID, "pair", o.Currency+":"+s.Currency)
			continue
		}
		ch := choice{Value: strconv.Itoa(s.ID), Name: s.Name, Enabled: true}
		if s.Rate == "" {
			ch.Detail = v.L.T("fiatpsp_same", "Quote", s.Quote.String(), "Currency", s.Currency)
		} else {
			ch.Detail = v.L.T("fiatpsp_quote", "Quote", s.Quote.String(), "Currency", s.Currency, "Rate", s.Rate, "Base", o.Currency)
		}
		choices = append(choices, ch)
	}
	return p.choose(c, v, p.stepForm(v, o, "/api/fiatpsp/confirm", "fiatpspSystemId", v.L.T("fiatpsp_title"), choices))
}

// cryptopspPage lists the cryptocurrencies; one whose provider minimum is
// above the order amount is disabled with the minimum shown, before the
// payer can pick it.
func (p *methodSteps) cryptopspPage(c *fiber.Ctx, v *view, o *schema.Order) error {
	opts, err := p.orders.Steps.CryptoCurrencies(c.UserContext(), o)
	if err != nil {
		return err
	}
	choices := make([]choice, len(opts))
	for i, cur := range opts {
		choices[i] = choice{Value: cur.Currency, Name: schema.CryptoName(cur.Currency), Enabled: cur.Enabled,
			Detail: v.L.T("cryptopsp_min", "Min", cur.Min.String(), "Currency", o.Currency)}
		if !cur.Enabled {
			choices[i].Detail, choices[i].Why = "", v.L.T("cryptopsp_below", "Min", cur.Min.String(), "Currency", o.Currency)
		}
	}
	return p.choose(c, v, p.stepForm(v, o, "/api/cryptopsp/confirm", "pay_currency", v.L.T("cryptopsp_title"), choices))
}

// stepForm is a provider's second step: posted to its confirm endpoint with
// the order and the page's language, since that address has no path of ours.
func (p *methodSteps) stepForm(v *view, o *schema.Order, action, field, title string, choices []choice) choiceForm {
	return choiceForm{Action: action, Field: field, Title: title, Choices: choices,
		Hidden: map[string]string{"paymentId": o.ID, "lang": v.L.Lang}}
}

// fromPage routes a provider-step confirm: a browser's form (it navigates,
// or it carries our CSRF token) is answered with pages and must carry the
// token; an API call passes on to the command side's JSON endpoint.
func (p *methodSteps) fromPage(h func(*fiber.Ctx, *view) error) fiber.Handler {
	page := p.page(h)
	return func(c *fiber.Ctx) error {
		browser := c.Get("Sec-Fetch-Dest") == "document" || strings.Contains(c.Get(fiber.HeaderAccept), "text/html")
		if !browser && c.FormValue("csrf") == "" {
			return c.Next()
		}
		return page(c)
	}
}

// fiatpspConfirm is the payment-system form.
func (p *methodSteps) fiatpspConfirm(c *fiber.Ctx, v *view) error {
	return p.confirmStep(c, v, "fiatpsp", func(id string) (*schema.Order, error) {
		return p.orders.Steps.ConfirmFiatpsp(c.UserContext(), id, c.FormValue("fiatpspSystemId"))
	})
}

// cryptopspConfirm is the cryptocurrency form.
func (p *methodSteps) cryptopspConfirm(c *fiber.Ctx, v *view) error {
	return p.confirmStep(c, v, "cryptopsp", func(id string) (*schema.Order, error) {
		return p.orders.Steps.ConfirmCryptopsp(c.UserContext(), id, c.FormValue("pay_currency"))
	})
}

func (p *methodSteps) confirmStep(c *fiber.Ctx, v *view, action string, confirm func(id string) (*schema.Order, error)) error {
	if err := p.checkCSRF(c); err != nil {
		return err
	}
	if lang := c.FormValue("lang"); lang != "" && lang != "en" {
		if !p.knownLang(lang) {
			return fiber.ErrNotFound
		}
		v.L, v.Prefix = p.catalogs[lang], "/"+lang
	}
	o, err := confirm(c.FormValue("paymentId"))
	p.m.done(action, err)
	if err != nil {
		return err
	}
	return p.redirect(c, p.next(v, o))
}
