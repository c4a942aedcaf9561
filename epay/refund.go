package epay

import (
	"context"

	"github.com/paygate/gateway/command"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/schema"
)

// RefundAnswer is act=refund's answer: the reference's code and msg, with
// the refund's numbers (the protocol's later form names them so): our
// refund id, the merchant's out_refund_no when sent, the order's two
// numbers and the amount. Status is ours: succeeded, or pending while the
// provider has not confirmed (we ask it again until it answers).
type RefundAnswer struct {
	Code        int    `json:"code"`
	Msg         string `json:"msg"`
	RefundNo    string `json:"refund_no"`
	OutRefundNo string `json:"out_refund_no,omitempty"`
	TradeNo     string `json:"trade_no"`
	OutTradeNo  string `json:"out_trade_no"`
	Money       string `json:"money"`
	Status      string `json:"status"`
}

// refund is act=refund: money back on the merchant's paid order, through
// our refund use case with every rule of SPEC.md's refund (never more in
// total than was paid, the merchant's create-class budget, out_refund_no
// as clientRefundId: the same one again answers the same refund).
func (a *API) refund(ctx context.Context, acct *merchant.Account, p Params) (RefundAnswer, error) {
	amount, err := schema.ParseAmount(p["money"])
	if err != nil {
		return RefundAnswer{}, apiRefused("money must be a positive decimal with at most 2 decimals, such as 10 or 10.50")
	}
	if p["trade_no"] == "" && p["out_trade_no"] == "" {
		return RefundAnswer{}, &APIError{Code: APICodeNoOrder, Msg: "trade_no or out_trade_no is required"}
	}
	id := p["trade_no"]
	if id == "" {
		o, err := a.byOutTradeNo(ctx, acct, p["out_trade_no"])
		if err != nil {
			return RefundAnswer{}, err
		}
		id = o.ID
	}
	ask := command.RefundAsk{OrderID: id, Amount: amount, ClientRefundID: p["out_refund_no"]}
	r, o, _, err := a.d.Refunds.RefundFor(ctx, acct, ask)
	if err != nil {
		return RefundAnswer{}, fromAPIDomain(err)
	}
	if r.Status == schema.RefundFailed {
		return RefundAnswer{}, apiRefused("refund failed: " + r.Error)
	}
	out := RefundAnswer{Code: APICodeOK, Msg: "refund succeeded; amount " + r.Amount.String(), RefundNo: r.ID,
		OutRefundNo: r.ClientRefundID, TradeNo: o.ID, OutTradeNo: o.ClientOrderID, Money: r.Amount.String(), Status: string(r.Status)}
	if r.Status == schema.RefundPending {
		out.Msg = "refund accepted; the provider has not confirmed it yet"
	}
	return out, nil
}
