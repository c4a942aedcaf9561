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
func (d *Webhooks) SetCallback(ctx context.Context, a access.Actor, raw string) error {
	appid, err := d.strong.may(ctx, a, access.PermSettingsWrite)
	if err != nil {
		return err
	}
	if err := merchant.ValidateCallback(ctx, d.destinations, raw); err != nil {
		return err
	}
	note := "cleared"
	if raw != "" {
		u, _ := url.Parse(raw) // ValidateCallback parsed it
		note = "host " + u.Host
	}
	e := entry(d.now(), a, "merchant.set_callback", "merchant:"+appid, map[string]string{"note": note})
	_, err = d.merchants.Audited(e).SetCallback(ctx, appid, raw)
	return err
}

// SendTestEvent posts a signed test event to the merchant's default
// callback URL under the dispatcher's address guard, and answers how the
// receiver answered. One per merchant per TestEvery; audited with the
// status it got.
func (d *Webhooks) SendTestEvent(ctx context.Context, a access.Actor) (*dispatcher.TestResult, error) {
	appid, err := may(a, access.PermSettingsWrite)
	if err != nil {
		return nil, err
	}
	acct, err := d.merchants.Get(ctx, appid)
	if err != nil {
		return nil, err
	}
	if acct.Callback == "" {
		return nil, invalid("set a default callback URL first")
	}
	if err := d.destinations.Check(ctx, acct.Callback); err != nil {
		return nil, &platform.Error{Kind: platform.KindInvalidParameter, Msg: err.Error(), Err: err}
	}
	e := entry(d.now(), a, "webhook.test", "merchant:"+appid, map[string]string{})
	if err := e.Check(); err != nil {
		return nil, err
	}
	if err := d.spaceTests(ctx, appid); err != nil {
		return nil, err
	}
	res, err := d.tester.Send(ctx, appid, acct.Callback)
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
func (d *Webhooks) spaceTests(ctx context.Context, appid string) error {
	ok, err := d.rdb.SetNX(ctx, schema.WebhookTestKey(appid), "1", d.testEvery).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("space test events: %w", err)
	}
	if !ok {
		left, err := d.rdb.PTTL(ctx, schema.WebhookTestKey(appid)).Result()
		if err != nil || left <= 0 {
			left = d.testEvery
		}
		return &platform.RateLimited{RetryAfter: left}
	}
	return nil
}
