package walleta

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/paygate/gateway/provider"
)

// RefundBiz is the trade.refund call's business content. out_request_no
// names the refund: the provider refunds once per trade and request number,
// so a repeated call (a retry, the gateway's recovery) answers the same.
type RefundBiz struct {
	OutTradeNo   string `json:"out_trade_no"`
	RefundAmount string `json:"refund_amount"`
	OutRequestNo string `json:"out_request_no"`
	RefundReason string `json:"refund_reason,omitempty"`
}

// maxRefundReason is the provider's bound on refund_reason (runes).
const maxRefundReason = 256

// Refund gives part or all of a paid trade back (trade.refund), in the
// charge's currency as the trade was made. The answer's refund_fee is the
// trade's refunded total; our refund's id at the provider is the trade
// number and our request number.
func (a *Adapter) Refund(ctx context.Context, r provider.RefundRequest) (provider.RefundResult, error) {
	if r.OrderID == "" || r.RefundID == "" || r.Amount.Amount <= 0 {
		return provider.RefundResult{}, fmt.Errorf("wallet_a refund: order, refund id and a positive amount are needed: %w", provider.ErrRefused)
	}
	biz := RefundBiz{OutTradeNo: r.OrderID, RefundAmount: r.Amount.Amount.String(), OutRequestNo: r.RefundID,
		RefundReason: truncateRunes(r.Reason, maxRefundReason)}
	node, err := a.call(ctx, "refund", true, "trade.refund", biz, "")
	if err != nil {
		return provider.RefundResult{}, err
	}
	var res struct {
		OutTradeNo string `json:"out_trade_no"`
		TradeNo    string `json:"trade_no"`
		FundChange string `json:"fund_change"`
	}
	if err := json.Unmarshal(node, &res); err != nil {
		return provider.RefundResult{}, fmt.Errorf("wallet_a refund answer: %w", errors.Join(provider.ErrRefused, err))
	}
	if res.OutTradeNo != r.OrderID {
		return provider.RefundResult{}, fmt.Errorf("wallet_a refund answered for another trade: %w", provider.ErrMalformed)
	}
	return provider.RefundResult{Ref: res.TradeNo + "/" + r.RefundID}, nil
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}
