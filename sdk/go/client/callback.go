package client

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// maxWebhook bounds a webhook's body as a receiver reads it; the gateway's
// are a few hundred bytes.
const maxWebhook = 1 << 20

// Callback is a paid or refund webhook in SPEC.md's form (sent to the
// order's notify_url), verified. Event is "" for the paid webhook and
// "refund" for a refund's end. Params hold every parameter as received.
type Callback struct {
	Event          string `form:"event"`
	PaymentID      string `form:"paymentId"`
	Amount         string `form:"amount"`
	Currency       string `form:"currency"`
	Status         string `form:"status"`
	StatusStr      string `form:"status_str"`
	PaymentMethod  string `form:"paymentMethod"`
	Description    string `form:"description"`
	ClientOrderID  string `form:"clientOrderId"`
	CreatedAt      string `form:"createdAt"`
	CompletedTime  string `form:"completedTime"`
	RefundID       string `form:"refundId"`
	ClientRefundID string `form:"clientRefundId"`
	RefundStatus   string `form:"refundStatus"`
	RefundedAmount string `form:"refundedAmount"`
	Reason         string `form:"reason"`
	UpdatedAt      string `form:"updatedAt"`
	Params         url.Values
}

// Paid says whether this is the paid webhook of a paid order.
func (c *Callback) Paid() bool { return c.Event == "" && c.Status == "2" }

// VerifyForm checks a webhook form's MD5 sign with the API key (SPEC.md:
// every parameter but sign and sign_type, sorted, the key appended), in
// constant time. A parameter given twice is refused: the sign covers one
// value per name, and which one a reader takes is not the sign's.
func (v Verifier) VerifyForm(form url.Values) error {
	if v.APIKey == "" {
		return errors.New("paygate: webhook: Verifier.APIKey required for the MD5 form")
	}
	flat := make(map[string]string, len(form))
	for name, vs := range form {
		if len(vs) != 1 {
			return fmt.Errorf("%w: %s given %d times", ErrSignature, name, len(vs))
		}
		flat[name] = vs[0]
	}
	if st, ok := flat["sign_type"]; ok && !strings.EqualFold(st, "MD5") {
		return fmt.Errorf("%w: sign_type %q", ErrSignature, st)
	}
	got := strings.ToLower(flat["sign"])
	if subtle.ConstantTimeCompare([]byte(got), []byte(Sign(flat, v.APIKey))) != 1 {
		return ErrSignature
	}
	return nil
}

// Callback reads and verifies a paid or refund webhook from the request a
// receiver's handler got: the headers with Secret, the MD5 form with
// APIKey (each one that is set; at least one must be). After it, answer
// the body "success" (and act on the order afterwards); any other answer
// makes the gateway send it again.
func (v Verifier) Callback(r *http.Request) (*Callback, error) {
	if v.APIKey == "" && v.Secret == "" {
		return nil, errors.New("paygate: webhook: Verifier needs APIKey, Secret or both")
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxWebhook+1))
	if err != nil {
		return nil, fmt.Errorf("paygate: webhook: read body: %w", err)
	}
	if len(body) > maxWebhook {
		return nil, errors.New("paygate: webhook: body too large")
	}
	if v.Secret != "" {
		if err := v.VerifyHeaders(r.Header, body); err != nil {
			return nil, err
		}
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, fmt.Errorf("paygate: webhook: form: %w", err)
	}
	if v.APIKey != "" {
		if err := v.VerifyForm(form); err != nil {
			return nil, err
		}
	}
	return ParseCallback(form), nil
}

// ParseCallback reads a webhook form's fields; it verifies nothing (see
// Verifier.Callback).
func ParseCallback(form url.Values) *Callback {
	g := form.Get
	return &Callback{
		Event: g("event"), PaymentID: g("paymentId"), Amount: g("amount"), Currency: g("currency"),
		Status: g("status"), StatusStr: g("status_str"), PaymentMethod: g("paymentMethod"),
		Description: g("description"), ClientOrderID: g("clientOrderId"), CreatedAt: g("createdAt"),
		CompletedTime: g("completedTime"), RefundID: g("refundId"), ClientRefundID: g("clientRefundId"),
		RefundStatus: g("refundStatus"), RefundedAmount: g("refundedAmount"), Reason: g("reason"),
		UpdatedAt: g("updatedAt"), Params: form,
	}
}
