package walletb

import (
	"encoding/json"
	"strings"

	family "github.com/paygate/gateway/provider/walletb"

	"github.com/gofiber/fiber/v2"
)

// simRefund is a refund as the simulator keeps it, on its transaction.
type simRefund struct {
	ID     string `json:"id"`
	Amount int64  `json:"amount"`
}

// refund answers the refund call: a paid transaction gives back up to what
// is left of it, once per out_refund_no (a repeat answers the same refund
// and moves nothing). The simulator's refunds succeed at once.
func (s *Simulator) refund(c *fiber.Ctx) error {
	if ok, err := s.guard(c); !ok {
		return err
	}
	var o family.RefundOrder
	if err := json.Unmarshal(c.Body(), &o); err != nil || o.OutTradeNo == "" || o.OutRefundNo == "" || o.Amount.Refund <= 0 {
		return s.reply(c, fiber.StatusBadRequest, apiError{"PARAM_ERROR", "out_trade_no, out_refund_no and amount.refund are required"})
	}
	ctx := c.UserContext()
	t, err := s.load(ctx, strings.Clone(o.OutTradeNo))
	if err != nil {
		return s.reply(c, fiber.StatusNotFound, apiError{"ORDER_NOT_EXIST", "order does not exist"})
	}
	switch prior, seen := t.Refunds[o.OutRefundNo]; {
	case seen && prior.Amount != o.Amount.Refund:
		return s.reply(c, fiber.StatusBadRequest, apiError{"INVALID_REQUEST", "out_refund_no was used with another amount"})
	case seen:
		return s.reply(c, fiber.StatusOK, s.refundAnswer(t, o.OutRefundNo))
	case t.State != "SUCCESS":
		return s.reply(c, fiber.StatusForbidden, apiError{"TRADE_STATE_ERROR", "the order is not paid"})
	case o.Amount.Total != t.Total || o.Amount.Currency != t.Currency:
		return s.reply(c, fiber.StatusBadRequest, apiError{"INVALID_REQUEST", "amount.total or currency differs from the order"})
	case t.RefundedTotal+o.Amount.Refund > t.Total:
		return s.reply(c, fiber.StatusForbidden, apiError{"NOT_ENOUGH", "refund exceeds what is left of the order"})
	}
	if t.Refunds == nil {
		t.Refunds = map[string]simRefund{}
	}
	t.Refunds[o.OutRefundNo] = simRefund{ID: "50" + newTransactionID(), Amount: o.Amount.Refund}
	t.RefundedTotal += o.Amount.Refund
	if err := s.save(ctx, t); err != nil {
		s.log.Error("wallet_b simulator: store refund", "err", err)
		return s.reply(c, fiber.StatusInternalServerError, apiError{"SYSTEM_ERROR", "try again"})
	}
	return s.reply(c, fiber.StatusOK, s.refundAnswer(t, o.OutRefundNo))
}

func (s *Simulator) refundAnswer(t simTx, no string) family.RefundAnswer {
	return family.RefundAnswer{RefundID: t.Refunds[no].ID, OutRefundNo: no, OutTradeNo: t.OutTradeNo, Status: "SUCCESS"}
}
