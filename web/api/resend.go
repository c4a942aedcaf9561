package api

import (
	"bytes"
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/server"
)

// resendData is the answer's data.
type resendData struct {
	PaymentID string `json:"paymentId"`
	RefundID  string `json:"refundId,omitempty"`
	EventID   string `json:"eventId"`
	Resend    string `json:"resend"`
}

// Resend serves POST /api/order/webhooks/resend
// (dispatcher.ResendAPI.MerchantResend): a merchant's signed call for one
// more attempt of a webhook, only queued, so any node with Redis serves it.
func Resend(a *dispatcher.ResendAPI) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, err := flatParams(c.Body())
		if err != nil {
			return err
		}
		r, err := a.MerchantResend(c.UserContext(), p)
		if err != nil {
			return err
		}
		return server.OK(c, resendData{PaymentID: r.PaymentID, RefundID: r.RefundID, EventID: r.EventID, Resend: "queued"})
	}
}

// maxResendBody bounds a request, like createorder's.
const maxResendBody = 64 << 10

// flatParams reads a JSON object of flat values as createorder does: a
// number keeps its literal (it is signed as sent), null is absent, nested
// values and booleans are refused.
func flatParams(body []byte) (schema.Params, error) {
	if len(body) > maxResendBody {
		return nil, platform.Errorf(platform.KindTooLarge, "request body is larger than 64 KiB")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil || dec.More() {
		return nil, &platform.Error{Kind: platform.KindBadRequest, Msg: "request body is not a JSON object", Err: err}
	}
	p := make(schema.Params, len(raw))
	for k, v := range raw {
		switch x := v.(type) {
		case nil:
		case string:
			p[k] = x
		case json.Number:
			p[k] = x.String()
		default:
			return nil, platform.Errorf(platform.KindBadRequest, "parameter %s must be a string or a number", k)
		}
	}
	return p, nil
}
