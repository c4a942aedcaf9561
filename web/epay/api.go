package epay

import (
	"errors"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/epay"
)

// api serves api.php: the parameters of the query string and, for a POST,
// of the form, as one set (a name given twice, in one or across both, is
// refused: which of two values a proxy checked and which we act on would
// be a guess). Answers are the protocol's JSON, refusals included, with
// HTTP 200 as the protocol does; only our own failure is a 500.
func (d *APIDoor) api(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	post := c.Method() == fiber.MethodPost
	p := make(epay.Params)
	err := apiParams(p, c.Context().QueryArgs())
	if err == nil && post {
		err = apiParams(p, c.Context().PostArgs())
	}
	var answer any
	if err == nil {
		answer, err = d.API.Do(c.UserContext(), epay.APICall{Params: p, Post: post})
	}
	if err == nil {
		return c.JSON(answer)
	}
	var e *epay.APIError
	if errors.As(err, &e) {
		return c.JSON(fiber.Map{"code": e.Code, "msg": e.Msg})
	}
	d.Log.Error("epay api.php failed", "act", p["act"], "err", err)
	c.Status(fiber.StatusInternalServerError)
	return c.JSON(fiber.Map{"code": epay.APICodeRefused, "msg": "internal error; try again"})
}

// apiParams copies args into p (the values die with the request).
func apiParams(p epay.Params, args *fasthttp.Args) error {
	var err error
	args.VisitAll(func(k, v []byte) {
		name := string(k)
		if _, dup := p[name]; dup && err == nil {
			err = &epay.APIError{Code: epay.APICodeRefused, Msg: "parameter " + apiClip(name) + " is given twice"}
		}
		p[name] = string(v)
	})
	return err
}

func apiClip(s string) string {
	if len(s) > 32 {
		return s[:32]
	}
	return s
}
