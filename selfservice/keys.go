package selfservice

import (
	"context"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/merchant"
)

// Credentials is the Developers page's view of the merchant's credentials:
// never a whole secret, only the end of each so that a person can tell
// which one their servers hold.
type Credentials struct {
	AppID       string
	Sandbox     bool
	APIKeyEnd   string    // the last four characters
	PrevKeyTill time.Time // the previous API key verifies until then (zero: none)
	// Webhooks are MD5-signed with the previous API key (until PrevKeyTill
	// or the merchant's confirmation: merchant.Account.WebhookKey).
	WebhooksOnOldKey bool
	PrevKeyEnd       string
	QueryKeyEnd      string
	PrevQueryTill    time.Time // the previous query key reads until then (zero: none)
	SecretEnd        string
	PrevSecretTill   time.Time
	Callback         string
	DefaultGrace     time.Duration
	MaxGrace         time.Duration
}

// Credentials reads what the Developers page shows; every role may read it.
func (d *Desk) Credentials(ctx context.Context, w Who) (*Credentials, error) {
	appid, err := d.may(w, access.PermOrdersRead)
	if err != nil {
		return nil, err
	}
	a, err := d.Merchants.Get(ctx, appid)
	if err != nil {
		return nil, err
	}
	now := d.now()
	c := &Credentials{AppID: a.AppID, Sandbox: a.Sandbox, APIKeyEnd: end(a.APIKey), QueryKeyEnd: end(a.QueryKey),
		SecretEnd: end(a.WebhookSecret), Callback: a.Callback, DefaultGrace: d.cfg.KeyGrace, MaxGrace: d.cfg.MaxGrace}
	if a.PrevAPIKey != "" && now.Before(a.PrevKeyTill) {
		c.PrevKeyTill, c.PrevKeyEnd = a.PrevKeyTill, end(a.PrevAPIKey)
	}
	c.WebhooksOnOldKey = a.WebhooksOnOldKey(now)
	if a.PrevQueryKey != "" && now.Before(a.PrevQueryTill) {
		c.PrevQueryTill = a.PrevQueryTill
	}
	if a.PrevWebhookSecret != "" && now.Before(a.PrevWebhookTill) {
		c.PrevSecretTill = a.PrevWebhookTill
	}
	return c, nil
}

// end is the last four characters of a secret, for recognising it.
func end(s string) string {
	if len(s) <= 8 {
		return ""
	}
	return s[len(s)-4:]
}

// Rotated is a new secret, shown once: the page shows it in the answer to
// the rotation and never again.
type Rotated struct {
	Secret   string
	OldUntil time.Time // the old one keeps working until then; zero: stopped now
}

// grace checks a requested grace period; negative asks for the default.
func (d *Desk) grace(g time.Duration) (time.Duration, error) {
	if g < 0 {
		return d.cfg.KeyGrace, nil
	}
	if g > d.cfg.MaxGrace {
		return 0, invalid("the grace period may be at most %s", d.cfg.MaxGrace)
	}
	return g, nil
}

// RotateAPIKey issues a new API key; the old one keeps verifying for grace
// (negative: the default), so servers can be rolled over without failed
// requests. The change and its audit entry are one transaction.
func (d *Desk) RotateAPIKey(ctx context.Context, w Who, grace time.Duration) (*Rotated, error) {
	appid, err := d.may(w, access.PermKeysRotate)
	if err != nil {
		return nil, err
	}
	if grace, err = d.grace(grace); err != nil {
		return nil, err
	}
	e := d.entry(w, "merchant.rotate_api_key", "merchant:"+appid, map[string]string{"grace": grace.String()})
	a, err := d.Merchants.Audited(e).RotateKey(ctx, appid, grace)
	if err != nil {
		return nil, err
	}
	return &Rotated{Secret: a.APIKey, OldUntil: till(a.PrevAPIKey, a.PrevKeyTill)}, nil
}

// ConfirmWebhookKey is the merchant saying its webhook receiver verifies
// with the new API key: webhooks are MD5-signed with it from now on, while
// the old key keeps verifying requests until its grace ends. The change
// and its audit entry are one transaction.
func (d *Desk) ConfirmWebhookKey(ctx context.Context, w Who) error {
	appid, err := d.may(w, access.PermKeysRotate)
	if err != nil {
		return err
	}
	e := d.entry(w, "merchant.confirm_webhook_key", "merchant:"+appid, nil)
	_, err = d.Merchants.Audited(e).ConfirmWebhookKey(ctx, appid)
	return err
}

// RotateQueryKey issues a new query key; the old one keeps reading for
// grace (negative: the default; 0: stops now, for a key that leaked), so
// status polls do not fail while servers roll over. The change and its
// audit entry are one transaction.
func (d *Desk) RotateQueryKey(ctx context.Context, w Who, grace time.Duration) (*Rotated, error) {
	appid, err := d.may(w, access.PermKeysRotate)
	if err != nil {
		return nil, err
	}
	if grace, err = d.grace(grace); err != nil {
		return nil, err
	}
	e := d.entry(w, "merchant.rotate_query_key", "merchant:"+appid, map[string]string{"grace": grace.String()})
	a, err := d.Merchants.Audited(e).RotateQueryKeyGrace(ctx, appid, grace)
	if err != nil {
		return nil, err
	}
	return &Rotated{Secret: a.QueryKey, OldUntil: till(a.PrevQueryKey, a.PrevQueryTill)}, nil
}

// RotateWebhookSecret issues a new webhook signing secret; for grace
// webhooks carry a signature with the old one as well.
func (d *Desk) RotateWebhookSecret(ctx context.Context, w Who, grace time.Duration) (*Rotated, error) {
	appid, err := d.may(w, access.PermKeysRotate)
	if err != nil {
		return nil, err
	}
	if grace, err = d.grace(grace); err != nil {
		return nil, err
	}
	e := d.entry(w, "merchant.rotate_webhook_secret", "merchant:"+appid, map[string]string{"grace": grace.String()})
	a, err := d.Merchants.Audited(e).RotateWebhookSecret(ctx, appid, grace)
	if err != nil {
		return nil, err
	}
	return &Rotated{Secret: a.WebhookSecret, OldUntil: till(a.PrevWebhookSecret, a.PrevWebhookTill)}, nil
}

func till(prev string, t time.Time) time.Time {
	if prev == "" {
		return time.Time{}
	}
	return t
}

// account reads the session's merchant.
func (d *Desk) account(ctx context.Context, appid string) (*merchant.Account, error) {
	return d.Merchants.Get(ctx, appid)
}
