package walleta

import (
	"context"
	"encoding/json"

	family "github.com/paygate/gateway/provider/walleta"

	"github.com/paygate/gateway/schema"
)

// refund answers trade.refund: a paid trade gives back up to what is left
// of it, once per out_request_no (a repeat answers the same and moves
// nothing).
func (s *Simulator) refund(ctx context.Context, bizContent string) node {
	var biz family.RefundBiz
	if err := json.Unmarshal([]byte(bizContent), &biz); err != nil || biz.OutTradeNo == "" || biz.OutRequestNo == "" {
		return invalidArguments("isv.invalid-parameter", "out_trade_no and out_request_no are required")
	}
	amt, err := schema.ParseAmount(biz.RefundAmount)
	if err != nil {
		return invalidArguments("isv.invalid-refund-amount", "refund_amount is not an amount")
	}
	t, err := s.load(ctx, biz.OutTradeNo)
	if err != nil || t.Status == "" {
		return businessFailed("ACQ.TRADE_NOT_EXIST", "trade does not exist")
	}
	if t.Status != family.StatusTradeSuccess {
		return businessFailed("ACQ.TRADE_STATUS_ERROR", "trade is not paid")
	}
	if prior, ok := t.Refunds[biz.OutRequestNo]; ok {
		if prior != amt.String() {
			return businessFailed("ACQ.REQUEST_AMOUNT_EXCEED", "out_request_no was used with another amount")
		}
		return s.refunded(t)
	}
	total, _ := schema.ParseAmount(t.TotalAmount)
	var done schema.Amount
	if t.Refunded != "" {
		done, _ = schema.ParseAmount(t.Refunded)
	}
	if done+amt > total {
		return businessFailed("ACQ.REFUND_AMT_NOT_EQUAL_TOTAL", "refund amount exceeds what is left of the trade")
	}
	if t.Refunds == nil {
		t.Refunds = map[string]string{}
	}
	t.Refunds[biz.OutRequestNo], t.Refunded = amt.String(), (done + amt).String()
	if err := s.save(ctx, t); err != nil {
		s.log.Error("wallet_a simulator: store refund", "err", err)
		return refusal("20000", "Service Currently Unavailable", "isp.unknow-error", "try again")
	}
	return s.refunded(t)
}

func (s *Simulator) refunded(t trade) node {
	return node{"code": family.CodeSuccess, "msg": "Success", "out_trade_no": t.OutTradeNo, "trade_no": t.TradeNo,
		"refund_fee": t.Refunded, "fund_change": "Y", "buyer_logon_id": simBuyer}
}
