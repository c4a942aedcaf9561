package bdpspb

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/wire"
	"github.com/paygate/gateway/schema"
)

// Adapter is the bdpsp_b protocol for one merchant account.
type Adapter struct {
	cfg    Config
	caller *provider.Caller
}

var _ provider.Adapter = (*Adapter)(nil)

// New checks cfg and builds the adapter; caller is the family's HTTP client.
func New(cfg Config, caller *provider.Caller) (*Adapter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("%s config: %w", Family, err)
	}
	if caller == nil {
		return nil, fmt.Errorf("%s: no caller", Family)
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &Adapter{cfg: cfg, caller: caller}, nil
}

// CreateRequest is the create call's JSON body. The account's static key
// travels in it: this provider has no token grant.
type CreateRequest struct {
	StoreID      string `json:"store_id"`
	SignatureKey string `json:"signature_key"`
	TranID       string `json:"tran_id"`
	Amount       string `json:"amount"`
	Currency     string `json:"currency"`
	Desc         string `json:"desc"`
	CusName      string `json:"cus_name"`
	CusEmail     string `json:"cus_email"`
	CusPhone     string `json:"cus_phone"`
	SuccessURL   string `json:"success_url"`
	FailURL      string `json:"fail_url"`
	CancelURL    string `json:"cancel_url"`
	Type         string `json:"type"`
}

// CreateAnswer is its answer: the payment page and the provider's id.
type CreateAnswer struct {
	Result     wire.Text `json:"result"`
	PaymentURL string    `json:"payment_url"`
	Track      string    `json:"track"`
	Message    string    `json:"message"`
}

// Initialise creates the payment and returns the provider's payment page
// (Init.ProviderURL) and its id (Init.Ref). The provider charges BDT only:
// the command side has converted a USD order. Not idempotent: never retried.
func (a *Adapter) Initialise(ctx context.Context, p provider.Payment) (provider.Init, error) {
	if p.Charge.Currency != "BDT" || p.Charge.Amount <= 0 {
		return provider.Init{}, fmt.Errorf("%s charges a positive BDT amount, not %s %s", Family, p.Charge.Amount, p.Charge.Currency)
	}
	if err := wire.CheckID("order id", p.OrderID); err != nil {
		return provider.Init{}, fmt.Errorf("%s: %w", Family, err)
	}
	if err := schema.CheckURL(p.NotifyURL); err != nil {
		return provider.Init{}, fmt.Errorf("%s: notify URL (our return prefix): %w", Family, err)
	}
	body, err := json.Marshal(a.createRequest(p))
	if err != nil {
		return provider.Init{}, fmt.Errorf("%s create: %w", Family, err)
	}
	ans, err := a.caller.Do(ctx, "create", false, wire.Request(http.MethodPost, a.cfg.BaseURL+a.cfg.CreatePath, body,
		"Content-Type", "application/json", "Accept", "application/json"))
	if err != nil {
		return provider.Init{}, fmt.Errorf("%s create for %s: %w", Family, p.OrderID, wire.Scrub(err, a.cfg.SignatureKey))
	}
	var c CreateAnswer
	if err := wire.DecodeJSON(ans.Body, &c); err != nil {
		return provider.Init{}, fmt.Errorf("%s create for %s (HTTP %d): %w", Family, p.OrderID, ans.Status, err)
	}
	if c.Result != "true" {
		return provider.Init{}, fmt.Errorf("%s create for %s: HTTP %d %q: %w", Family, p.OrderID, ans.Status, wire.Clip(c.Message, 200), provider.ErrRefused)
	}
	if schema.CheckURL(c.PaymentURL) != nil || wire.CheckID("track", c.Track) != nil {
		return provider.Init{}, fmt.Errorf("%s create for %s: no usable payment URL or id: %w", Family, p.OrderID, provider.ErrUnavailable)
	}
	return provider.Init{ProviderURL: c.PaymentURL, Ref: c.Track}, nil
}

func (a *Adapter) createRequest(p provider.Payment) CreateRequest {
	return CreateRequest{
		StoreID: a.cfg.StoreID, SignatureKey: a.cfg.SignatureKey, TranID: p.OrderID,
		Amount: p.Charge.Amount.String(), Currency: p.Charge.Currency,
		Desc:     wire.OrDefault(wire.Clip(p.Description, 255), "Order "+p.OrderID),
		CusName:  wire.OrDefault(wire.Clip(p.CustomerName, 50), "Customer"),
		CusEmail: wire.OrDefault(wire.Clip(p.CustomerEmail, 50), "customer@example.invalid"),
		CusPhone: wire.OrDefault(wire.Clip(p.CustomerPhone, 20), "N/A"),
		// The payer comes back through our notification endpoints, not our
		// pages: here the browser's return is the only notification there is.
		SuccessURL: returnURL(p.NotifyURL, "success"), FailURL: returnURL(p.NotifyURL, "fail"),
		CancelURL: returnURL(p.NotifyURL, "cancel"),
		Type:      "json",
	}
}

// returnURL is one of our three return endpoints below notify, which is our
// notification prefix plus "return" (…/api/gatewaynotification/bdpsp_b/return).
func returnURL(notify, outcome string) string {
	return strings.TrimRight(notify, "/") + "/" + outcome
}

// Reply to a browser return is a redirect of the payer onwards, whatever
// the verdict: the payer is no party to the verification. Location is left
// empty: the gateway sets it to the order's page (it knows the order, the
// language and its own address); a refused or unconfirmed return simply
// leaves the order as it was, and its page says so.
func (a *Adapter) Reply(provider.Notification, error) provider.Reply {
	return provider.Reply{Status: http.StatusSeeOther}
}
