package walletb

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/paygate/gateway/provider"
)

// PathRefunds is the refund call's path, under Config.BaseURL.
const PathRefunds = "/v3/refund/domestic/refunds"

// RefundOrder is the refund call's body. out_refund_no names the refund:
// the provider refunds once per merchant and refund number, so a repeated
// call (a retry, the gateway's recovery) answers the same refund.
type RefundOrder struct {
	OutTradeNo  string       `json:"out_trade_no"`
	OutRefundNo string       `json:"out_refund_no"`
	Reason      string       `json:"reason,omitempty"`
	Amount      refundAmount `json:"amount"`
}

type refundAmount struct {
	Refund   int64  `json:"refund"`
	Total    int64  `json:"total"`
	Currency string `json:"currency"`
}

// RefundAnswer is the provider's refund as it answers it.
type RefundAnswer struct {
	RefundID    string `json:"refund_id"`
	OutRefundNo string `json:"out_refund_no"`
	OutTradeNo  string `json:"out_trade_no"`
	Status      string `json:"status"` // SUCCESS, PROCESSING, ABNORMAL, CLOSED
}

// maxRefundReason is the provider's bound on reason (bytes).
const maxRefundReason = 80

// Refund gives part or all of a paid transaction back (integer minor
// units of the charge's currency, with the transaction's total as the
// provider wants it). SUCCESS and PROCESSING are a refund the provider
// made or will make; ABNORMAL and CLOSED, and any 4xx, a refusal.
func (a *Adapter) Refund(ctx context.Context, r provider.RefundRequest) (provider.RefundResult, error) {
	reason := r.Reason
	if len(reason) > maxRefundReason {
		reason = ""
	}
	body, err := json.Marshal(RefundOrder{OutTradeNo: r.OrderID, OutRefundNo: r.RefundID, Reason: reason,
		Amount: refundAmount{Refund: int64(r.Amount.Amount), Total: int64(r.Charged.Amount), Currency: r.Amount.Currency}})
	if err != nil {
		return provider.RefundResult{}, fmt.Errorf("wallet_b refund: %w", err)
	}
	ans, err := a.call(ctx, "refund", true, http.MethodPost, PathRefunds, body)
	if err != nil {
		return provider.RefundResult{}, err
	}
	if ans.Status != http.StatusOK {
		return provider.RefundResult{}, refusal("refund", ans)
	}
	var res RefundAnswer
	if err := json.Unmarshal(ans.Body, &res); err != nil || res.OutRefundNo != r.RefundID || res.RefundID == "" {
		return provider.RefundResult{}, fmt.Errorf("wallet_b refund answer names no refund of ours: %w", provider.ErrMalformed)
	}
	if res.Status != "SUCCESS" && res.Status != "PROCESSING" {
		return provider.RefundResult{}, fmt.Errorf("wallet_b refund %s: %w", res.Status, provider.ErrRefused)
	}
	return provider.RefundResult{Ref: res.RefundID}, nil
}
