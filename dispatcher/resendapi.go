package dispatcher

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"
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

// ResendAPI serves POST /api/order/webhooks/resend: a merchant asks for one
// more attempt of its order's paid webhook, or with refundId of one of its
// refunds' webhooks, recorded as manual, as an operator
// does with `gateway webhook resend`. It only queues the attempt, so any
// node with Redis can serve it; a running dispatcher sends it.
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
	return &ResendAPI{cfg: cfg, hooks: NewWebhooks(rdb), accounts: accounts, limiter: limiter, now: time.Now}, nil
}

// resendParams are the request's required fields, in the order the first
// missing one is named. refundId is optional (signed like the rest when
// given): it picks that refund's webhook instead of the paid one.
var resendParams = []string{"appid", "action", "paymentId", "sign"}

// resendData is the answer's data.
type resendData struct {
	PaymentID string `json:"paymentId"`
	RefundID  string `json:"refundId,omitempty"`
	EventID   string `json:"eventId"`
	Resend    string `json:"resend"`
}

// Serve runs createorder's check order (required fields, appid, enabled,
// sign_type, sign, rate limit, action), then queues the resend. An order
// without a delivery, another merchant's, or a refundId that is not the
// order's, is 404 alike; one whose attempt is running now is 409.
func (a *ResendAPI) Serve(c *fiber.Ctx) error {
	p, err := flatParams(c.Body())
	if err != nil {
		return err
	}
	for _, name := range resendParams {
		if p[name] == "" {
			return platform.Errorf(platform.KindMissingParameter, "parameter %s is required", name)
		}
	}
	acct, err := a.authenticate(c.UserContext(), p)
	if err != nil {
		return err
	}
	if err := a.limiter.Allow(c.UserContext(), "create", acct.AppID, merchant.Limit(acct.CreateLimit, a.cfg.Limit)); err != nil {
		return err
	}
	if p["action"] != "resend" {
		return platform.Errorf(platform.KindInvalidParameter, "action must be resend")
	}
	id, refundID := p["paymentId"], p["refundId"]
	if err := a.hooks.Resend(c.UserContext(), ResendAsk{PaymentID: id, RefundID: refundID, AppID: acct.AppID}); err != nil {
		return err
	}
	event := id
	if refundID != "" {
		event = refundID
	}
	return platform.OK(c, resendData{PaymentID: id, RefundID: refundID, EventID: EventID(event), Resend: "queued"})
}

// authenticate is createorder's appid, enabled and signature steps.
func (a *ResendAPI) authenticate(ctx context.Context, p schema.Params) (*merchant.Account, error) {
	return merchant.AuthenticateForm(ctx, a.accounts, schema.ResendForm, p, a.now())
}

// maxResendBody bounds a request, like createorder's.
const maxResendBody = 64 << 10

// flatParams reads a JSON object of flat values as createorder does: a
// number keeps its literal (it is signed as sent), null is absent, nested
// values and booleans are refused.
func flatParams(body []byte) (schema.Params, error) {
	if len(body) > maxResendBody {
		return nil, platform.Errorf(platform.KindTooLarge, "request body is larger than 64 KiB")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil || dec.More() {
		return nil, &platform.Error{Kind: platform.KindBadRequest, Msg: "request body is not a JSON object", Err: err}
	}
	p := make(schema.Params, len(raw))
	for k, v := range raw {
		switch x := v.(type) {
		case nil:
		case string:
			p[k] = x
		case json.Number:
			p[k] = x.String()
		default:
			return nil, platform.Errorf(platform.KindBadRequest, "parameter %s must be a string or a number", k)
		}
	}
	return p, nil
}
