package dispatcher

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
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

// encodeCallback is how a delivery stores its parameters: form-encoded in
// key order, which is both most of the request body and, decoded pair by
// pair, SPEC.md's signed string, so an attempt needs no parsing or sorting.
func encodeCallback(p schema.Params) string {
	form := make(url.Values, len(p))
	for k, v := range p {
		form.Set(k, v)
	}
	return form.Encode()
}

// storedForm reads a delivery's stored parameters: the form of
// encodeCallback, or the JSON object that builds before it stored.
func storedForm(stored string) (string, error) {
	if !strings.HasPrefix(stored, "{") {
		return stored, nil
	}
	var p schema.Params
	if err := json.Unmarshal([]byte(stored), &p); err != nil {
		return "", err
	}
	return encodeCallback(p), nil
}

// signForm is the request body: the stored form, sign (MD5 of the decoded
// pairs joined in their key order, then the API key: schema.Sign) and
// sign_type. Receivers verify on the decoded values, which is what SPEC.md
// signs (no URL encoding in the signed string).
func signForm(form, apiKey string) (string, error) {
	h := md5.New()
	for i, pair := range strings.Split(form, "&") {
		k, v, _ := strings.Cut(pair, "=")
		dk, err := url.QueryUnescape(k)
		if err != nil {
			return "", fmt.Errorf("stored callback parameters cannot be read: %w", err)
		}
		dv, err := url.QueryUnescape(v)
		if err != nil {
			return "", fmt.Errorf("stored callback parameters cannot be read: %w", err)
		}
		if i > 0 {
			h.Write([]byte{'&'})
		}
		io.WriteString(h, dk)
		h.Write([]byte{'='})
		io.WriteString(h, dv)
	}
	io.WriteString(h, apiKey)
	return form + "&sign=" + hex.EncodeToString(h.Sum(nil)) + "&sign_type=MD5", nil
}

// acknowledged is DESIGN.md's rule: any 2xx whose body, with surrounding
// ASCII white space trimmed, is "success" in any letter case. (A body over
// our read bound never gets here: the client refuses it.) Letter case is
// ASCII's: the length check keeps Unicode's folds ("ſuccess" with U+017F,
// which strings.EqualFold equates with "success") from acknowledging, as
// SPEC.md asks for exactly the word.
func acknowledged(status int, body []byte) bool {
	if status < 200 || status > 299 {
		return false
	}
	word := strings.Trim(string(body), " \t\r\n\v\f")
	return len(word) == len("success") && strings.EqualFold(word, "success")
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
