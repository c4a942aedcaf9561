package cryptohost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/provider/wire"
)

// Adapter is the cryptohost protocol for the command side.
type Adapter struct {
	cfg    Config
	caller *provider.Caller
}

var _ provider.Adapter = (*Adapter)(nil)

// New checks the configuration and builds the adapter; caller is the
// family's provider.Caller (its time-outs, bounds and metrics).
func New(cfg Config, caller *provider.Caller) (*Adapter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if caller == nil {
		return nil, errors.New("cryptohost: no caller")
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &Adapter{cfg: cfg, caller: caller}, nil
}

// CreateCharge is the charge creation request.
type CreateCharge struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	PricingType string `json:"pricing_type"`
	LocalPrice  Price  `json:"local_price"`
	Metadata    struct {
		OrderID string `json:"order_id"`
	} `json:"metadata"`
	RedirectURL string `json:"redirect_url,omitempty"`
	CancelURL   string `json:"cancel_url,omitempty"`
}

// Initialise creates a hosted charge for the amount to charge; the payer
// goes to its hosted URL, and its code is the reference the webhook and
// Query use. Not idempotent at the provider: it is never sent twice.
func (a *Adapter) Initialise(ctx context.Context, p provider.Payment) (provider.Init, error) {
	if p.OrderID == "" || p.Charge.Amount <= 0 || !decimal.Currency(p.Charge.Currency) {
		return provider.Init{}, fmt.Errorf("cryptohost: payment needs an order id and a positive amount in a currency")
	}
	req := CreateCharge{
		Name: a.cfg.ChargeName, Description: p.Description, PricingType: "fixed_price",
		LocalPrice:  Price{Amount: p.Charge.Amount.String(), Currency: p.Charge.Currency},
		RedirectURL: p.SuccessURL, CancelURL: p.CancelURL,
	}
	if req.Description == "" {
		req.Description = a.cfg.ChargeName + " " + p.OrderID
	}
	if r := []rune(req.Description); len(r) > 200 { // the provider's bound on a description
		req.Description = string(r[:200])
	}
	req.Metadata.OrderID = p.OrderID
	body, err := json.Marshal(req)
	if err != nil {
		return provider.Init{}, fmt.Errorf("cryptohost: encode charge: %w", err)
	}
	var out struct {
		Data Charge `json:"data"`
	}
	if err := a.call(ctx, "create_charge", false, http.MethodPost, "/charges", body, &out); err != nil {
		return provider.Init{}, err
	}
	if err := checkCreated(&out.Data); err != nil {
		return provider.Init{}, fmt.Errorf("cryptohost create_charge: %w", errors.Join(provider.ErrUnavailable, err))
	}
	return provider.Init{ProviderURL: out.Data.HostedURL, Ref: out.Data.Code}, nil
}

// checkCreated refuses a creation answer we could not send a payer to.
func checkCreated(c *Charge) error {
	if !wire.IsRef(c.Code) {
		return errors.New("answer has no valid charge code")
	}
	if u, err := url.Parse(c.HostedURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return errors.New("answer has no hosted URL")
	}
	if c.ExpiresAt != "" {
		if _, err := time.Parse(time.RFC3339, c.ExpiresAt); err != nil {
			return fmt.Errorf("answer's expiry: %w", err)
		}
	}
	return nil
}

// Query reads the charge by its code (idempotent) and says what its
// current status means; the charge must be orderID's when orderID is set.
func (a *Adapter) Query(ctx context.Context, orderID, ref string) (provider.Notification, error) {
	if !wire.IsRef(ref) {
		return provider.Notification{}, fmt.Errorf("cryptohost: query: charge code %q: %w", ref, provider.ErrNotFound)
	}
	var out struct {
		Data Charge `json:"data"`
	}
	if err := a.call(ctx, "get_charge", true, http.MethodGet, "/charges/"+url.PathEscape(ref), nil, &out); err != nil {
		return provider.Notification{}, err
	}
	c := &out.Data
	if orderID != "" && c.Metadata.OrderID != orderID {
		return provider.Notification{}, fmt.Errorf("cryptohost: charge %s is not order %s's: %w", ref, orderID, provider.ErrNotFound)
	}
	fields := chargeFields(c)
	o, paid, err := judge(c, timelineOutcome(c), fields)
	if err != nil {
		return provider.Notification{}, fmt.Errorf("cryptohost get_charge: %w", errors.Join(provider.ErrUnavailable, err))
	}
	return provider.Notification{OrderID: c.Metadata.OrderID, Ref: c.Code, InitRef: c.Code, Outcome: o, Paid: paid, Fields: fields}, nil
}

// call sends one API request with the key and version headers and decodes
// a 2xx answer into out.
func (a *Adapter) call(ctx context.Context, name string, idempotent bool, method, path string, body []byte, out any) error {
	header := []string{a.cfg.APIKeyHeader, a.cfg.APIKey, a.cfg.VersionHeader, a.cfg.APIVersion, "Accept", "application/json"}
	if body != nil {
		header = append(header, "Content-Type", "application/json")
	}
	ans, err := a.caller.Do(ctx, name, idempotent, wire.Request(method, a.cfg.BaseURL+path, body, header...))
	if err != nil {
		return err
	}
	if err := answerError(ans); err != nil {
		return fmt.Errorf("cryptohost %s: %w", name, err)
	}
	if err := json.Unmarshal(ans.Body, out); err != nil {
		return fmt.Errorf("cryptohost %s: answer: %w", name, errors.Join(provider.ErrUnavailable, err))
	}
	return nil
}

// answerError turns a non-2xx answer into the error the command side tells
// apart; the provider's message is kept short and never holds our key.
func answerError(ans provider.Answer) error {
	if ans.Status >= 200 && ans.Status < 300 {
		return nil
	}
	var e struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(ans.Body, &e)
	msg := e.Error.Type + ": " + e.Error.Message
	if len(msg) > 200 {
		msg = msg[:200]
	}
	switch {
	case ans.Status == http.StatusNotFound:
		return fmt.Errorf("HTTP 404 (%s): %w", msg, provider.ErrNotFound)
	case ans.Status >= 400 && ans.Status < 500:
		return fmt.Errorf("HTTP %d (%s): %w", ans.Status, msg, provider.ErrRefused)
	}
	return fmt.Errorf("HTTP %d: %w", ans.Status, provider.ErrUnavailable)
}

// Reply is what the provider expects: 200 for an accepted webhook; a
// refused one gets a 4xx (forged or malformed: resending will not help,
// but the provider's retries are harmless), anything else a 500 so that the
// provider sends it again later.
func (a *Adapter) Reply(_ provider.Notification, err error) provider.Reply {
	switch {
	case err == nil:
		return provider.Reply{Status: http.StatusOK, ContentType: "text/plain; charset=utf-8", Body: "ok"}
	case errors.Is(err, provider.ErrSignature):
		return provider.Reply{Status: http.StatusUnauthorized, ContentType: "text/plain; charset=utf-8", Body: "bad signature"}
	case errors.Is(err, provider.ErrMalformed):
		return provider.Reply{Status: http.StatusBadRequest, ContentType: "text/plain; charset=utf-8", Body: "malformed"}
	}
	return provider.Reply{Status: http.StatusInternalServerError, ContentType: "text/plain; charset=utf-8", Body: "try again"}
}
