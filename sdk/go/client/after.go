package client

import (
	"context"
	"errors"
)

// RefundRequest is a refund of a paid order, in full or in part.
type RefundRequest struct {
	PaymentID string
	Amount    string // decimal string, at most two decimals
	Reason    string
	// ClientRefundID makes the refund idempotent per order: the same id
	// again answers that refund and refunds nothing more.
	ClientRefundID string
}

func (r RefundRequest) params() map[string]string {
	return map[string]string{"paymentId": r.PaymentID, "amount": r.Amount, "reason": r.Reason, "clientRefundId": r.ClientRefundID}
}

// signedParams are params (empty ones left out) with appid and action,
// signed with the API key.
func (c *Client) signedParams(action string, params map[string]string) map[string]string {
	p := map[string]string{"appid": c.cfg.AppID, "action": action}
	for name, v := range params {
		if v != "" {
			p[name] = v
		}
	}
	p["sign"] = Sign(p, c.cfg.APIKey)
	p["sign_type"] = "MD5"
	return p
}

// signedPost signs params and posts them to path.
func (c *Client) signedPost(ctx context.Context, path, action string, params map[string]string, out any) error {
	if c.cfg.APIKey == "" {
		return errors.New("paygate: " + path + ": Config.APIKey required")
	}
	req, err := postJSON(path, c.signedParams(action, params))
	if err != nil {
		return err
	}
	return c.t.do(ctx, req, out)
}

// Cancel cancels an unpaid order (POST /api/order/cancel) and answers it.
// A cancelled order stays so; a paid or failed one is *Error of kind
// conflict.
func (c *Client) Cancel(ctx context.Context, paymentID string) (*Order, error) {
	var o Order
	if err := c.signedPost(ctx, "/api/order/cancel", "cancel", map[string]string{"paymentId": paymentID}, &o); err != nil {
		return nil, err
	}
	return &o, nil
}

// Refund refunds a paid order (POST /api/order/refund). The refunds of an
// order never add up to more than was paid (*Error of kind
// refund_exceeds_paid). A refund the provider has not settled yet is
// pending; its end arrives as a refund webhook.
func (c *Client) Refund(ctx context.Context, r RefundRequest) (*Refunded, error) {
	if r.PaymentID == "" || r.Amount == "" {
		return nil, errors.New("paygate: refund: PaymentID and Amount required")
	}
	var out Refunded
	err := c.signedPost(ctx, "/api/order/refund", "refund", r.params(), &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}
