package api

import (
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/server"
)

// createData is the create response's data (SPEC.md).
type createData struct {
	PaymentID       string  `json:"paymentId"`
	OrderID         string  `json:"orderId"`
	RedirectURL     *string `json:"redirectUrl"`
	SelectURL       string  `json:"selectUrl,omitempty"`
	NextAction      string  `json:"nextAction,omitempty"`
	PayableAmount   string  `json:"payableAmount,omitempty"`
	QRImageURL      *string `json:"qrImageUrl"`
	Status          int     `json:"status"`
	StatusString    string  `json:"statusString"`
	PaidWithBalance bool    `json:"paidWithBalance"`
	Idempotent      bool    `json:"idempotent"`
	Amount          string  `json:"amount"`
	Currency        string  `json:"currency"`
	PaymentMethod   string  `json:"paymentMethod"`
	ClientOrderID   string  `json:"clientOrderId,omitempty"`
	CreatedAt       string  `json:"createdAt"`
}

// createPost serves POST /api/createorder as JSON. The closure holds the
// use case and the client-IP reader themselves, so a request costs no more
// than the method value it replaced.
func createPost(uc *command.UseCases) fiber.Handler {
	create, ips, base := uc.Create, uc.ClientIP(), uc.PublicURL()
	return func(c *fiber.Ctx) error {
		p, err := command.ParseJSONParams(c.Body())
		if err != nil {
			return err
		}
		o, replay, err := create.Create(c.UserContext(), p, server.ClientAddr(ips, c), false)
		if err != nil {
			return err
		}
		d := createAnswer(o, replay, base)
		return sendCreateAnswer(c, &d)
	}
}

// createRedirect answers GET /api/createorder where no payer pages are
// mounted: errors as a page, success as a redirect to where the merchant
// would send the payer. A command node serves createHosted instead.
func createRedirect(uc *command.UseCases) fiber.Handler {
	base := uc.PublicURL()
	return createHosted(uc, func(c *fiber.Ctx, o *schema.Order) error {
		l := schema.OrderLinks(o, base)
		return c.Redirect(l.MerchantRedirect(base, o.ID), fiber.StatusFound)
	}, nil)
}

// createHosted is GET /api/createorder answered with page: the payment
// page of the order created, or of the live order a refresh with the same
// clientOrderId finds (SPEC.md). A refused create is answered by fail
// when given, else by the error handler's plain page.
func createHosted(uc *command.UseCases, page func(*fiber.Ctx, *schema.Order) error, fail func(*fiber.Ctx, HostedError) error) fiber.Handler {
	create, ips := uc.Create, uc.ClientIP()
	return func(c *fiber.Ctx) error {
		server.WantHTMLErrors(c)
		p, err := command.ParseQueryParams(c.Context().QueryArgs())
		if err == nil {
			var o *schema.Order
			if o, _, err = create.Create(c.UserContext(), p, server.ClientAddr(ips, c), true); err == nil {
				return page(c, o)
			}
		}
		if fail == nil {
			return err
		}
		return fail(c, hostedError(c, uc, p, err))
	}
}

// HostedError is a refused hosted create as the payer's page shows it.
type HostedError struct {
	Err  error
	Lang string // the request's lang, when it names one
	// Back is where the payer may go back to: the origin of the request's
	// return_url, only when the request is the merchant's own (its
	// signature verifies), so that a forged link cannot make our page
	// send payers to another site.
	Back string
}

func hostedError(c *fiber.Ctx, uc *command.UseCases, p schema.Params, err error) HostedError {
	he := HostedError{Err: err}
	if p == nil {
		return he
	}
	he.Lang = p["lang"]
	ret := p["return_url"]
	if ret == "" {
		return he
	}
	if aerr := uc.Authenticate(c.UserContext(), schema.CreateForm, p); aerr != nil {
		return he
	}
	if u, perr := url.Parse(ret); perr == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" {
		he.Back = u.Scheme + "://" + u.Host + "/"
	}
	return he
}

// createAnswer is the create response's data for o.
func createAnswer(o *schema.Order, replay bool, base string) createData {
	l := schema.OrderLinks(o, base)
	d := createData{
		PaymentID: o.ID, OrderID: o.ID, SelectURL: l.SelectURL, NextAction: o.NextAction,
		PayableAmount: o.PayableAmount, Status: int(o.Status), StatusString: o.Status.String(),
		PaidWithBalance: o.PaidWithBalance, Idempotent: replay, Amount: o.Amount.String(),
		Currency: o.Currency, PaymentMethod: string(o.Method), ClientOrderID: o.ClientOrderID,
		CreatedAt: schema.WireTime(o.CreatedAt),
	}
	if l.RedirectURL != "" {
		d.RedirectURL = &l.RedirectURL
	}
	if l.QRImageURL != "" {
		d.QRImageURL = &l.QRImageURL
	}
	return d
}
