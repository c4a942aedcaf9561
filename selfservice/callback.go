package selfservice

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/dispatcher"
	"github.com/paygate/gateway/merchant"
	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// SetCallback changes the merchant's default callback URL (empty clears
// it) under the one callback rule of every door (merchant.ValidateCallback:
// the API's form rules and the dispatcher's address rules, so that a URL
// every webhook would be refused for is refused here, with the reason). The audit entry
// names the host only: a URL's path or query may hold the merchant's own
// token.
func (d *Desk) SetCallback(ctx context.Context, w Who, raw string) error {
	appid, err := d.may(w, access.PermSettingsWrite)
	if err != nil {
		return err
	}
	if err := merchant.ValidateCallback(ctx, d.Destinations, raw); err != nil {
		return err
	}
	note := "cleared"
	if raw != "" {
		u, _ := url.Parse(raw) // ValidateCallback parsed it
		note = "host " + u.Host
	}
	e := d.entry(w, "merchant.set_callback", "merchant:"+appid, map[string]string{"note": note})
	_, err = d.Merchants.Audited(e).SetCallback(ctx, appid, raw)
	return err
}

// SendTestEvent posts a signed test event to the merchant's default
// callback URL under the dispatcher's address guard, and answers how the
// receiver answered. One per merchant per TestEvery; audited with the
// status it got.
func (d *Desk) SendTestEvent(ctx context.Context, w Who) (*dispatcher.TestResult, error) {
	appid, err := d.may(w, access.PermSettingsWrite)
	if err != nil {
		return nil, err
	}
	a, err := d.account(ctx, appid)
	if err != nil {
		return nil, err
	}
	if a.Callback == "" {
		return nil, invalid("set a default callback URL first")
	}
	if err := d.Destinations.Check(ctx, a.Callback); err != nil {
		return nil, &platform.Error{Kind: platform.KindInvalidParameter, Msg: err.Error(), Err: err}
	}
	e := d.entry(w, "webhook.test", "merchant:"+appid, map[string]string{})
	if err := e.Check(); err != nil {
		return nil, err
	}
	if err := d.spaceTests(ctx, appid); err != nil {
		return nil, err
	}
	res, err := d.Tester.Send(ctx, appid, a.Callback)
	if err != nil {
		return nil, err
	}
	result := "failed"
	if res.Acknowledged {
		result = "acknowledged"
	}
	e.Details["status"], e.Details["result"] = strconv.Itoa(res.Status), result
	if _, err := d.audit.Append(ctx, e); err != nil {
		return nil, err
	}
	return &res, nil
}

// spaceTests lets one test event through per merchant per TestEvery.
func (d *Desk) spaceTests(ctx context.Context, appid string) error {
	ok, err := d.Redis.SetNX(ctx, schema.WebhookTestKey(appid), "1", d.cfg.TestEvery).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("space test events: %w", err)
	}
	if !ok {
		left, err := d.Redis.PTTL(ctx, schema.WebhookTestKey(appid)).Result()
		if err != nil || left <= 0 {
			left = d.cfg.TestEvery
		}
		return &platform.RateLimited{RetryAfter: left}
	}
	return nil
}
