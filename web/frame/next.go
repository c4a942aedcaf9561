package frame

import (
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/web/server"
)

// errorData is the error page's body: what went wrong (a domain error's
// own safe message) and what to do next, with the page to go to. A
// refusal that only says "no" leaves a person stuck; each one says the
// next step instead.
type errorData struct {
	Msg  string
	Next string // message id of the next step
	Href string // the page the next step sends the person to
	Link string // message id of that link's text
}

// nextByKind is the next step of the domain refusals a console meets,
// where the kind says more than its status.
var nextByKind = map[platform.Kind]string{
	platform.KindRefundExceeded:    "next_refund_exceeded",
	platform.KindRefundUnsupported: "next_refund_unsupported",
	platform.KindRefundMismatch:    "next_refund_exceeded",
	platform.KindProviderRefused:   "next_provider_refused",
	platform.KindMerchantDisabled:  "next_merchant_disabled",
	platform.KindRateLimited:       "next_429",
	platform.KindUnavailable:       "next_503",
}

// nextStep is the next step of err answered with code on the request's
// path: a message id, the page to go to and its link's text.
func nextStep(cfg Config, c *fiber.Ctx, err error, code int) errorData {
	var d errorData
	var de *platform.Error
	if errors.As(err, &de) {
		d.Next = nextByKind[de.Kind]
	}
	if d.Next == "" {
		d.Next = "next_" + strconv.Itoa(code)
		if code >= 500 && code != fiber.StatusServiceUnavailable {
			d.Next = "next_500"
		} else if _, ok := nextCodes[code]; !ok {
			d.Next = "next_400"
		}
	}
	d.Href, d.Link = pageOf(cfg, c.Path()), "next_link_page"
	switch {
	case code == fiber.StatusUnauthorized:
		d.Href, d.Link = cfg.Base+"/login", "next_link_login"
	case code == fiber.StatusForbidden && server.Classify(err).Msg == errCSRF.Msg:
		d.Next = "next_csrf"
	case code == fiber.StatusForbidden && cfg.Realm == access.RealmOperator:
		d.Next = "next_403_operator"
	case code == fiber.StatusForbidden:
		// Every role reads the Team page: what each role can do, who the
		// owners are.
		d.Href, d.Link = cfg.Base+"/team", "next_link_team"
	case code == fiber.StatusNotFound:
		// What is not found is not looked at again: its section's list.
		if sec, rest, _ := strings.Cut(strings.Trim(strings.TrimPrefix(c.Path(), cfg.Base), "/"), "/"); rest != "" {
			d.Href = cfg.Base + "/" + sec
		} else {
			d.Href = cfg.Base + "/"
		}
	}
	if d.Href == cfg.Base+"/" {
		d.Link = "back_home"
	}
	return d
}

// nextCodes are the statuses with a next step of their own.
var nextCodes = map[int]struct{}{
	fiber.StatusBadRequest: {}, fiber.StatusUnauthorized: {}, fiber.StatusForbidden: {}, fiber.StatusNotFound: {},
	fiber.StatusConflict: {}, fiber.StatusRequestEntityTooLarge: {}, fiber.StatusTooManyRequests: {},
	fiber.StatusServiceUnavailable: {},
}

// pageOf is the page a request on path belongs to, where the person goes
// to look again: an order's action belongs to the order
// (Base/orders/ID/refund → Base/orders/ID), an order that is not found to
// the list, anything else to its section's page (Base/developers/rotate/x
// → Base/developers).
func pageOf(cfg Config, path string) string {
	rest := strings.Trim(strings.TrimPrefix(path, cfg.Base), "/")
	parts := strings.Split(rest, "/")
	switch {
	case rest == "":
		return cfg.Base + "/"
	case parts[0] == "orders" && len(parts) >= 3:
		return cfg.Base + "/orders/" + parts[1]
	}
	return cfg.Base + "/" + parts[0]
}
