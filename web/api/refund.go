package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/server"
)

// refundData is POST /api/order/refund's answer: the refund, the order's
// refunded total after it, and whether clientRefundId named an earlier
// refund (a retry, answered with that refund as it is now).
type refundData struct {
	schema.RefundView
	RefundedAmount string `json:"refundedAmount"`
	Idempotent     bool   `json:"idempotent"`
}

// refundPost serves POST /api/order/refund (Refunds.MerchantRefund).
func refundPost(uc *command.UseCases) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, err := command.ParseJSONParams(c.Body())
		if err != nil {
			return err
		}
		r, o, replay, err := uc.Refund.MerchantRefund(c.UserContext(), p, server.ClientAddr(uc.ClientIP(), c))
		if err != nil {
			return err
		}
		return server.OK(c, refundData{RefundView: schema.ViewRefund(r), RefundedAmount: o.Refunded.String(), Idempotent: replay})
	}
}
