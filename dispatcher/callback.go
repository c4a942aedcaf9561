package dispatcher

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/paygate/gateway/schema"
)

// callbackParams are SPEC.md's paid-order callback parameters, without sign
// and sign_type: they are fixed when the order is paid and stored with the
// delivery, while the signature is made at each attempt with the merchant's
// key of that moment. Empty optional fields are left out (DESIGN.md).
func callbackParams(o *schema.Order) schema.Params {
	p := schema.Params{
		"paymentId":     o.ID,
		"amount":        o.Amount.String(),
		"currency":      o.Currency,
		"status":        strconv.Itoa(int(schema.StatusPaid)),
		"status_str":    schema.StatusPaid.String(),
		"paymentMethod": o.Method.WebhookName(),
		"createdAt":     schema.WireTime(o.CreatedAt),
	}
	done := o.CompletedAt
	if done.IsZero() {
		done = o.UpdatedAt // a paid order always has dt; this only guards old snapshots
	}
	if v := schema.WireTime(done); v != "" {
		p["completedTime"] = v
	}
	if o.Description != "" {
		p["description"] = o.Description
	}
	if o.ClientOrderID != "" {
		p["clientOrderId"] = o.ClientOrderID
	}
	return p
}

// signedForm is the request body: the parameters, sign (MD5 with the API
// key) and sign_type, form-encoded. Receivers verify on the decoded values,
// which is what SPEC.md signs (no URL encoding in the signed string).
func signedForm(p schema.Params, apiKey string) string {
	form := make(url.Values, len(p)+2)
	for k, v := range p {
		form.Set(k, v)
	}
	form.Set("sign", schema.Sign(p, apiKey))
	form.Set("sign_type", "MD5")
	return form.Encode()
}

// acknowledged is DESIGN.md's rule: any 2xx whose body, with surrounding
// ASCII white space trimmed, is "success" in any letter case. A body cut
// short by our read bound is never an acknowledgement.
func acknowledged(status int, body []byte, truncated bool) bool {
	if status < 200 || status > 299 || truncated {
		return false
	}
	return strings.EqualFold(strings.Trim(string(body), " \t\r\n\v\f"), "success")
}

// keptBody is the start of a response body as an attempt record keeps it;
// a rune cut in half (or any invalid UTF-8) becomes U+FFFD so that the JSON
// log stays readable.
func keptBody(body []byte) string {
	if len(body) > schema.WebhookBodyKept {
		body = body[:schema.WebhookBodyKept]
	}
	return strings.ToValidUTF8(string(body), "\uFFFD")
}
