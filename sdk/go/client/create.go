package client

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// CreateRequest is an order to create (SPEC.md, POST /api/createorder).
// Empty optional fields are not sent.
type CreateRequest struct {
	// Amount in the currency's units as a decimal string, at most two
	// decimals ("100.50"); it is sent and signed exactly as written.
	Amount        string
	Currency      string // CNY, USD, BDT
	PaymentMethod string // a method code, or "select" for the payer's choice
	// ClientIP is the clientip, which must equal the address the gateway
	// sees the request come from: this server's for Create (default
	// Config.ClientIP), the payer's browser's for HostedURL.
	ClientIP      string
	ClientOrderID string // the merchant's own id; a live order's repeat answers it
	Description   string
	CustomerName  string
	CustomerEmail string
	CustomerPhone string
	NotifyURL     string // the paid webhook's address (else the merchant's default)
	ReturnURL     string // the payer's way back; {paymentId} is replaced
	Lang          string // the selection page's language (en, zh, es, ...)
	// AllowedPaymentMethods narrows a select order's choice.
	AllowedPaymentMethods []string
	// FiatpspSystemID picks a fiatpsp payment system at once.
	FiatpspSystemID string
}

// params are the request's parameters as signed and sent.
func (r CreateRequest) params(appID, clientIP string) map[string]string {
	p := map[string]string{
		"appid": appID, "action": "createorder", "clientip": clientIP,
		"amount": r.Amount, "currency": r.Currency, "paymentMethod": r.PaymentMethod,
	}
	optional := map[string]string{
		"clientOrderId": r.ClientOrderID, "description": r.Description,
		"customerName": r.CustomerName, "customerEmail": r.CustomerEmail, "customerPhone": r.CustomerPhone,
		"notify_url": r.NotifyURL, "return_url": r.ReturnURL, "lang": r.Lang,
		"allowedPaymentMethods": strings.Join(r.AllowedPaymentMethods, ","), "fiatpspSystemId": r.FiatpspSystemID,
	}
	for name, v := range optional {
		if v != "" {
			p[name] = v
		}
	}
	return p
}

// signed checks r, fills its clientip and signs it: the parameters ready to
// send, sign and sign_type included.
func (c *Client) signed(r CreateRequest, defaultIP string) (map[string]string, error) {
	ip := r.ClientIP
	if ip == "" {
		ip = defaultIP
	}
	var missing []string
	for name, v := range map[string]string{"Amount": r.Amount, "Currency": r.Currency,
		"PaymentMethod": r.PaymentMethod, "ClientIP": ip, "Config.APIKey": c.cfg.APIKey} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("paygate: create: %s required", strings.Join(slices.Sorted(slices.Values(missing)), ", "))
	}
	p := r.params(c.cfg.AppID, ip)
	p["sign"] = Sign(p, c.cfg.APIKey)
	p["sign_type"] = "MD5"
	return p, nil
}

// Create creates an order (POST /api/createorder) and answers where to
// send the payer. With a ClientOrderID, a retry of the same create, or the
// same ClientOrderID while its order is pending or ready, answers that
// order (Created.Idempotent).
func (c *Client) Create(ctx context.Context, r CreateRequest) (*Created, error) {
	p, err := c.signed(r, c.cfg.ClientIP)
	if err != nil {
		return nil, err
	}
	req, err := postJSON("/api/createorder", p)
	if err != nil {
		return nil, err
	}
	var out Created
	if err := c.t.do(ctx, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// PayerURL is where to send the payer after a create (SPEC.md's rule):
// redirectUrl, else selectUrl, else the gateway's payment page. A balance
// payment, paid at once, has none ("").
func (c *Client) PayerURL(o *Created) string {
	switch {
	case o.RedirectURL != nil && *o.RedirectURL != "":
		return *o.RedirectURL
	case o.SelectURL != "":
		return o.SelectURL
	case o.PaidWithBalance:
		return ""
	}
	return c.cfg.BaseURL + "/payment/" + url.PathEscape(o.PaymentID)
}

// HostedURL is the signed address of the gateway's hosted checkout (GET
// /api/createorder) for the payer's browser: opening it creates the order
// and shows its payment page. ClientIP must be the payer's address as the
// gateway will see it; it has no default.
func (c *Client) HostedURL(r CreateRequest) (string, error) {
	if r.ClientIP == "" {
		return "", errors.New("paygate: hosted URL: ClientIP (the payer's address) required")
	}
	p, err := c.signed(r, "")
	if err != nil {
		return "", err
	}
	q := url.Values{}
	for name, v := range p {
		q.Set(name, v)
	}
	return c.cfg.BaseURL + "/api/createorder?" + q.Encode(), nil
}
