package bdcard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/wire"
	"github.com/paygate/gateway/schema"
)

// Adapter is one store's protocol: bdcard's or bdpsp_a's.
type Adapter struct {
	cfg    Config
	caller *provider.Caller
}

var _ provider.Adapter = (*Adapter)(nil)

// New checks cfg and builds the adapter; caller is the family's HTTP client.
func New(cfg Config, caller *provider.Caller) (*Adapter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("%s config: %w", cfg.Family, err)
	}
	if caller == nil {
		return nil, fmt.Errorf("%s: no caller", cfg.Family)
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &Adapter{cfg: cfg, caller: caller}, nil
}

// SessionAnswer is the session call's JSON answer (the simulator answers
// with it too).
type SessionAnswer struct {
	Status         string `json:"status"`
	FailedReason   string `json:"failedreason"`
	SessionKey     string `json:"sessionkey"`
	GatewayPageURL string `json:"GatewayPageURL"`
}

// Initialise opens a checkout session for the order. The provider charges
// BDT only (the command side has converted a USD order); the order's own
// amount travels along as currency_type/currency_amount, and comes back so
// in the notification. The session call is not idempotent: never retried.
func (a *Adapter) Initialise(ctx context.Context, p provider.Payment) (provider.Init, error) {
	form, err := a.sessionForm(p)
	if err != nil {
		return provider.Init{}, err
	}
	body := form.Encode()
	ans, err := a.caller.Do(ctx, "session", false, wire.Request(http.MethodPost, a.cfg.BaseURL+a.cfg.SessionPath, []byte(body),
		"Content-Type", "application/x-www-form-urlencoded", "Accept", "application/json"))
	if err != nil {
		return provider.Init{}, fmt.Errorf("%s session for %s: %w", a.cfg.Family, p.OrderID, err)
	}
	var s SessionAnswer
	if err := wire.DecodeJSON(ans.Body, &s); err != nil {
		return provider.Init{}, fmt.Errorf("%s session for %s (HTTP %d): %w", a.cfg.Family, p.OrderID, ans.Status, err)
	}
	if !strings.EqualFold(s.Status, "SUCCESS") {
		return provider.Init{}, fmt.Errorf("%s session for %s: %q: %w", a.cfg.Family, p.OrderID, wire.Clip(s.FailedReason, 200), provider.ErrRefused)
	}
	if s.SessionKey == "" || len(s.SessionKey) > 256 || schema.CheckURL(s.GatewayPageURL) != nil {
		return provider.Init{}, fmt.Errorf("%s session for %s: no usable session key or checkout URL: %w", a.cfg.Family, p.OrderID, provider.ErrUnavailable)
	}
	return provider.Init{ProviderURL: s.GatewayPageURL, Ref: s.SessionKey}, nil
}

// sessionForm is the session call's form. Customer fields the provider
// requires but the order lacks get neutral placeholders.
func (a *Adapter) sessionForm(p provider.Payment) (url.Values, error) {
	if p.Charge.Currency != "BDT" || p.Charge.Amount <= 0 {
		return nil, fmt.Errorf("%s charges a positive BDT amount, not %s %s", a.cfg.Family, p.Charge.Amount, p.Charge.Currency)
	}
	if err := wire.CheckID("order id", p.OrderID); err != nil {
		return nil, fmt.Errorf("%s: %w", a.cfg.Family, err)
	}
	f := url.Values{}
	f.Set("store_id", a.cfg.StoreID)
	f.Set("store_passwd", a.cfg.StorePassword)
	f.Set("total_amount", p.Charge.Amount.String())
	f.Set("currency", p.Charge.Currency)
	f.Set("tran_id", p.OrderID)
	f.Set("success_url", p.SuccessURL)
	f.Set("fail_url", p.FailURL)
	f.Set("cancel_url", p.CancelURL)
	f.Set("ipn_url", p.NotifyURL)
	if !p.Original.IsZero() {
		f.Set("currency_type", p.Original.Currency)
		f.Set("currency_amount", p.Original.Amount.String())
	}
	f.Set("cus_name", wire.OrDefault(wire.Clip(p.CustomerName, 50), "Customer"))
	f.Set("cus_email", wire.OrDefault(wire.Clip(p.CustomerEmail, 50), "customer@example.invalid"))
	f.Set("cus_phone", wire.OrDefault(wire.Clip(p.CustomerPhone, 20), "N/A"))
	f.Set("cus_add1", "N/A")
	f.Set("cus_city", "N/A")
	f.Set("cus_country", "Bangladesh")
	f.Set("shipping_method", "NO")
	f.Set("num_of_item", "1")
	f.Set("product_name", wire.OrDefault(wire.Clip(p.Description, 255), "Order "+p.OrderID))
	f.Set("product_category", "general")
	f.Set("product_profile", "general")
	return f, nil
}

// Reply is what the provider expects of its IPN: HTTP 200 when we took it.
// A provider that could not be reached for the validation gets a 503, so
// that it sends the notification again; anything else refused a 400.
func (a *Adapter) Reply(_ provider.Notification, err error) provider.Reply {
	switch {
	case err == nil:
		return provider.Reply{Status: http.StatusOK, ContentType: "text/plain; charset=utf-8", Body: "OK"}
	case errors.Is(err, provider.ErrUnavailable):
		return provider.Reply{Status: http.StatusServiceUnavailable, ContentType: "text/plain; charset=utf-8", Body: "try again"}
	default:
		return provider.Reply{Status: http.StatusBadRequest, ContentType: "text/plain; charset=utf-8", Body: "refused"}
	}
}
