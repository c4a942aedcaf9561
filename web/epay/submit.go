package epay

import (
	"errors"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/epay"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/server"
)

// submit serves submit.php, the payer's browser bringing the merchant's
// signed form (GET link or POST form): the order is created, or found again
// for a replay, and the payer sent on to our payer page (the select page
// when no type was given). A refusal is a page with the protocol's message.
func (d *Door) submit(c *fiber.Ctx) error {
	server.WantHTMLErrors(c)
	args := c.Context().QueryArgs()
	if !args.Has("pid") && c.Method() == fiber.MethodPost {
		args = c.Context().PostArgs()
	}
	p, err := params(args)
	if err != nil {
		return err
	}
	o, err := d.Create.Create(c.UserContext(), epay.Call{Params: p, PayerIP: server.ClientAddr(d.IPs, c).String()})
	if err != nil {
		return pageError(err)
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Redirect(epay.Payer(o, d.Base), fiber.StatusFound)
}

// pageError is a refusal as the error page shows it: the protocol's
// message, 401 for a sign, 400 for the rest.
func pageError(err error) error {
	var e *epay.Error
	if !errors.As(err, &e) {
		return err
	}
	return &platform.Error{Kind: e.Kind(), Msg: e.Msg, Err: err}
}

// params copies a request's parameters (the values die with the request);
// a name given twice is refused, since which one was signed is a guess.
func params(args *fasthttp.Args) (epay.Params, error) {
	p := make(epay.Params, args.Len())
	var err error
	args.VisitAll(func(k, v []byte) {
		name := string(k)
		if _, dup := p[name]; dup && err == nil {
			err = &epay.Error{Code: epay.CodeRefused, Msg: "parameter " + clip(name) + " is given twice"}
		}
		p[name] = string(v)
	})
	return p, err
}

func clip(s string) string {
	if len(s) > 32 {
		return s[:32]
	}
	return s
}
