package dispatcher

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// Accounts is the merchant lookup the resend API authenticates with: a
// *merchant.Directory.
type Accounts interface {
	Lookup(ctx context.Context, appid string) (*merchant.Account, error)
}

// ResendConfig is what the resend API needs to know.
type ResendConfig struct {
	Limit platform.Limit // the default per-merchant rate, shared with createorder's
}

// ResendDefaults is what `gateway serve` gives the resend API unless told
// otherwise: createorder's default rate. A zero Limit is not filled from it
// (no field's zero means "the default" here): it stays the caller's.
func ResendDefaults() ResendConfig {
	p := platform.Defaults()
	return ResendConfig{Limit: p.Limits().Create}
}

// Validate refuses a negative rate or burst; it changes nothing.
func (c ResendConfig) Validate() error {
	if c.Limit.PerSecond < 0 || c.Limit.Burst < 0 {
		return fmt.Errorf("resend API: the rate %v/s, burst %d must not be negative", c.Limit.PerSecond, c.Limit.Burst)
	}
	return nil
}

// ResendAPI is the use case behind POST /api/order/webhooks/resend
// (web/api serves it): a merchant asks for one more attempt of its order's
// paid webhook, or with refundId of one of its refunds' webhooks, recorded
// as manual, as an operator does with `gateway webhook resend`. It only
// queues the attempt, so any node with Redis can serve it; a running
// dispatcher sends it.
type ResendAPI struct {
	cfg      ResendConfig
	hooks    *Webhooks
	accounts Accounts
	limiter  *platform.Limiter
	now      func() time.Time
}

// NewResendAPI wires the resend endpoint; a nil limiter applies no limit.
func NewResendAPI(cfg ResendConfig, rdb redis.UniversalClient, accounts Accounts, limiter *platform.Limiter) (*ResendAPI, error) {
	if rdb == nil || accounts == nil {
		return nil, errors.New("resend API: redis and accounts are required")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &ResendAPI{cfg: cfg, hooks: NewWebhooks(rdb), accounts: accounts, limiter: limiter, now: time.Now}, nil
}

// resendParams are the request's required fields, in the order the first
// missing one is named. refundId is optional (signed like the rest when
// given): it picks that refund's webhook instead of the paid one.
var resendParams = []string{"appid", "action", "paymentId", "sign"}

// Resent is a queued merchant resend: the order, the refund when one was
// named, and the event whose webhook goes again.
type Resent struct {
	PaymentID string
	RefundID  string
	EventID   string
}

// MerchantResend runs createorder's check order over the request's
// parameters (required fields, appid, enabled, sign_type, sign, rate limit,
// action), then queues the resend. An order without a delivery, another
// merchant's, or a refundId that is not the order's, is 404 alike; one whose
// attempt is running now is 409.
func (a *ResendAPI) MerchantResend(ctx context.Context, p schema.Params) (Resent, error) {
	for _, name := range resendParams {
		if p[name] == "" {
			return Resent{}, platform.Errorf(platform.KindMissingParameter, "parameter %s is required", name)
		}
	}
	acct, err := a.authenticate(ctx, p)
	if err != nil {
		return Resent{}, err
	}
	if err := a.limiter.Allow(ctx, "create", acct.AppID, merchant.Limit(acct.CreateLimit, a.cfg.Limit)); err != nil {
		return Resent{}, err
	}
	if p["action"] != "resend" {
		return Resent{}, platform.Errorf(platform.KindInvalidParameter, "action must be resend")
	}
	id, refundID := p["paymentId"], p["refundId"]
	if err := a.hooks.Resend(ctx, ResendAsk{PaymentID: id, RefundID: refundID, AppID: acct.AppID}); err != nil {
		return Resent{}, err
	}
	event := id
	if refundID != "" {
		event = refundID
	}
	return Resent{PaymentID: id, RefundID: refundID, EventID: EventID(event)}, nil
}

// authenticate is createorder's appid, enabled and signature steps.
func (a *ResendAPI) authenticate(ctx context.Context, p schema.Params) (*merchant.Account, error) {
	return merchant.AuthenticateForm(ctx, a.accounts, schema.ResendForm, p, a.now())
}
