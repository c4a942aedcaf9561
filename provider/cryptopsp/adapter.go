package cryptopsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/provider/wire"
	"github.com/paygate/gateway/schema"
)

// Adapter is the cryptopsp protocol for the command side.
type Adapter struct {
	cfg    Config
	caller *provider.Caller
}

var (
	_ provider.Adapter    = (*Adapter)(nil)
	_ provider.Currencies = (*Adapter)(nil)
)

// New checks the configuration and builds the adapter.
func New(cfg Config, caller *provider.Caller) (*Adapter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if caller == nil {
		return nil, errors.New("cryptopsp: no caller")
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &Adapter{cfg: cfg, caller: caller}, nil
}

// invoiceRequest is the invoice creation request; the price is a JSON
// number with the amount's two decimals.
type invoiceRequest struct {
	PriceAmount      json.Number `json:"price_amount"`
	PriceCurrency    string      `json:"price_currency"`
	PayCurrency      string      `json:"pay_currency"`
	OrderID          string      `json:"order_id"`
	OrderDescription string      `json:"order_description,omitempty"`
	IPNCallbackURL   string      `json:"ipn_callback_url"`
	SuccessURL       string      `json:"success_url,omitempty"`
	CancelURL        string      `json:"cancel_url,omitempty"`
}

// Initialise is two-step: without the payer's cryptocurrency it asks for
// the choice (no call); with it, it creates an invoice and sends the payer
// to its URL. The provider refuses a price under its minimum (ErrRefused).
func (a *Adapter) Initialise(ctx context.Context, p provider.Payment) (provider.Init, error) {
	if p.PayCurrency == "" {
		return provider.Init{NextAction: schema.NextCryptopspSelect}, nil
	}
	pay := strings.ToLower(p.PayCurrency)
	if p.OrderID == "" || p.Charge.Amount <= 0 || !decimal.Currency(p.Charge.Currency) || !validCrypto(pay) || p.NotifyURL == "" {
		return provider.Init{}, errors.New("cryptopsp: payment needs an order id, a positive amount in a currency, a cryptocurrency and a notify URL")
	}
	body, err := json.Marshal(invoiceRequest{
		PriceAmount: json.Number(p.Charge.Amount.String()), PriceCurrency: strings.ToLower(p.Charge.Currency),
		PayCurrency: pay, OrderID: p.OrderID, OrderDescription: p.Description, IPNCallbackURL: p.NotifyURL,
		SuccessURL: p.SuccessURL, CancelURL: p.CancelURL,
	})
	if err != nil {
		return provider.Init{}, fmt.Errorf("cryptopsp: encode invoice: %w", err)
	}
	o, err := a.call(ctx, "create_invoice", false, http.MethodPost, "/v1/invoice", body)
	if err != nil {
		return provider.Init{}, err
	}
	id, _ := Scalar(o["id"])
	link, _ := o["invoice_url"].(string)
	u, uerr := url.Parse(link)
	if !wire.IsRef(id) || uerr != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return provider.Init{}, fmt.Errorf("cryptopsp create_invoice: answer has no invoice id or URL: %w", provider.ErrUnavailable)
	}
	if echoed, _ := o["order_id"].(string); echoed != "" && echoed != p.OrderID {
		return provider.Init{}, fmt.Errorf("cryptopsp create_invoice: answer is for another order: %w", provider.ErrUnavailable)
	}
	return provider.Init{ProviderURL: link, Ref: id}, nil
}

// Query reads the payment's status by its payment id (the Ref of an IPN;
// an invoice id names no payment, and the provider answers not found).
func (a *Adapter) Query(ctx context.Context, orderID, ref string) (provider.Notification, error) {
	if !wire.IsRef(ref) {
		return provider.Notification{}, fmt.Errorf("cryptopsp: query: payment id %q: %w", ref, provider.ErrNotFound)
	}
	o, err := a.call(ctx, "get_payment", true, http.MethodGet, "/v1/payment/"+url.PathEscape(ref), nil)
	if err != nil {
		return provider.Notification{}, err
	}
	n, err := readPayment(o)
	if err != nil {
		return provider.Notification{}, fmt.Errorf("cryptopsp get_payment: %w", errors.Join(provider.ErrUnavailable, err))
	}
	if orderID != "" && n.OrderID != orderID {
		return provider.Notification{}, fmt.Errorf("cryptopsp: payment %s is not order %s's: %w", ref, orderID, provider.ErrNotFound)
	}
	return n, nil
}

// call sends one API request with the key header and parses a 2xx answer
// as a JSON object (numbers as their literal).
func (a *Adapter) call(ctx context.Context, name string, idempotent bool, method, path string, body []byte) (Object, error) {
	header := []string{a.cfg.APIKeyHeader, a.cfg.APIKey, "Accept", "application/json"}
	if body != nil {
		header = append(header, "Content-Type", "application/json")
	}
	ans, err := a.caller.Do(ctx, name, idempotent, wire.Request(method, a.cfg.BaseURL+path, body, header...))
	if err != nil {
		return nil, err
	}
	if err := answerError(ans); err != nil {
		return nil, fmt.Errorf("cryptopsp %s: %w", name, err)
	}
	o, err := DecodeObject(ans.Body)
	if err != nil {
		return nil, fmt.Errorf("cryptopsp %s: answer: %w", name, errors.Join(provider.ErrUnavailable, err))
	}
	return o, nil
}

// answerError turns a non-2xx answer into the error the command side tells
// apart, with the provider's code and message, kept short.
func answerError(ans provider.Answer) error {
	if ans.Status >= 200 && ans.Status < 300 {
		return nil
	}
	var e struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(ans.Body, &e)
	msg := clip(e.Code + ": " + e.Message)
	switch {
	case ans.Status == http.StatusNotFound || strings.Contains(e.Code, "NOT_FOUND"):
		return fmt.Errorf("HTTP %d (%s): %w", ans.Status, msg, provider.ErrNotFound)
	case ans.Status >= 400 && ans.Status < 500:
		return fmt.Errorf("HTTP %d (%s): %w", ans.Status, msg, provider.ErrRefused)
	}
	return fmt.Errorf("HTTP %d: %w", ans.Status, provider.ErrUnavailable)
}

// Reply is what the provider expects: 200 for an accepted IPN, at once; a
// refused one a 4xx, our own trouble a 500 so that it is sent again.
func (a *Adapter) Reply(_ provider.Notification, err error) provider.Reply {
	text := func(status int, body string) provider.Reply {
		return provider.Reply{Status: status, ContentType: "text/plain; charset=utf-8", Body: body}
	}
	switch {
	case err == nil:
		return text(http.StatusOK, "ok")
	case errors.Is(err, provider.ErrSignature):
		return text(http.StatusUnauthorized, "bad signature")
	case errors.Is(err, provider.ErrMalformed):
		return text(http.StatusBadRequest, "malformed")
	}
	return text(http.StatusInternalServerError, "try again")
}
