package checkout

import (
	"errors"
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/server"
)

// errCSRF is a form whose token is missing or not ours.
var errCSRF = errors.New("csrf token missing or wrong")

// errorView is the error page's data.
type errorView struct {
	Headline string
	Detail   string // the use case's own words, for kinds where they help
	Back     string // the payment page, when the error is about one
	Shop     string // the merchant's site, when the merchant's request named it
	Tech     *techDetail
}

// techDetail is what the merchant's developer needs of a refused create,
// folded away from the payer.
type techDetail struct {
	Code      int
	Kind, Msg string
}

// detailed are the kinds whose message tells the payer what to do
// differently; the others are worded by the catalogue alone.
var detailed = map[string]bool{
	string(platform.KindInvalidParameter): true, string(platform.KindBelowMinimum): true,
	string(platform.KindMethodUnavailable): true, string(platform.KindConflict): true,
}

// fail shows err as a page in the payer's language: what went wrong and,
// when an order is concerned, the way back to it. Internals stay in logs.
func (p *screen) fail(c *fiber.Ctx, v *view, err error) error {
	body := server.Classify(err)
	ev := errorView{Headline: v.L.T("err_internal")}
	switch {
	case errors.Is(err, errCSRF):
		body.Code, ev.Headline = fiber.StatusForbidden, v.L.T("err_csrf")
	case v.L.Has("err_" + body.Error):
		ev.Headline = v.L.T("err_" + body.Error)
	}
	if detailed[body.Error] {
		ev.Detail = body.Msg
	}
	if body.Code >= 500 {
		p.log.Error("payer page failed", "path", c.Path(), "err", err)
	}
	var rl *platform.RateLimited
	if errors.As(err, &rl) {
		c.Set(fiber.HeaderRetryAfter, "60")
	}
	id := c.Params("paymentId")
	if id == "" {
		id = c.FormValue("paymentId", c.FormValue("order", c.Query("order")))
	}
	if id != "" && body.Error != string(platform.KindNotFound) {
		ev.Back = v.Prefix + "/payment/" + url.PathEscape(id)
	}
	v.Title, v.Data = v.L.T("error_title"), ev
	p.m.errors.WithLabelValues(body.Error).Inc()
	return p.render(c, body.Code, "error", v)
}

// RenderCreateError answers a refused GET /api/createorder (a wrong
// signature, a parameter out of range) with the checkout's look: a plain
// sentence for the payer, the error's kind and message folded for the
// merchant's developer, and a link to back, the merchant's site, when the
// caller vouches for it (empty: none).
func (p *Pages) RenderCreateError(c *fiber.Ctx, err error, lang, back string) error {
	v := &view{L: p.catalogs["en"], Nonce: newNonce(), Assets: p.assets.paths}
	if cat, ok := p.catalogs[lang]; ok {
		v.L = cat
	}
	body := server.Classify(err)
	if body.Code >= 500 {
		p.log.Error("hosted create failed", "path", c.Path(), "err", err)
	}
	var rl *platform.RateLimited
	if errors.As(err, &rl) {
		c.Set(fiber.HeaderRetryAfter, "60")
	}
	ev := errorView{Headline: v.L.T("create_failed_lead"), Shop: back,
		Tech: &techDetail{Code: body.Code, Kind: body.Error, Msg: body.Msg}}
	v.Title, v.Data = v.L.T("create_failed_title"), ev
	p.m.errors.WithLabelValues(body.Error).Inc()
	return p.render(c, body.Code, "error", v)
}
