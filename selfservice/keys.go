package selfservice

import (
	"context"
	"sync"
	"time"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/merchant"
)

// Keys are the use cases of the merchant's credentials (the Developers
// page): reading their ends, rotating them with a grace period, and the
// signature debugger, which signs with them.
type Keys struct {
	keyGrace  time.Duration
	maxGrace  time.Duration
	merchants *merchant.Store
	now       func() time.Time
	modes     sync.Map     // appid → sandbox (bool): a merchant's mode never changes
	strong    secondFactor // rotations need TOTP
}

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
	// NeedsTOTP: the person's role may rotate keys or move the callback
	// but they have no TOTP, so the page offers setting it up instead of
	// those forms (the use cases refuse them: ErrNeedsTOTP).
	NeedsTOTP bool
}

// Credentials reads what the Developers page shows; every role may read it.
func (d *Keys) Credentials(ctx context.Context, actor access.Actor) (*Credentials, error) {
	appid, err := may(actor, access.PermOrdersRead)
	if err != nil {
		return nil, err
	}
	a, err := d.merchants.Get(ctx, appid)
	if err != nil {
		return nil, err
	}
	now := d.now()
	c := &Credentials{AppID: a.AppID, Sandbox: a.Sandbox, APIKeyEnd: end(a.APIKey), QueryKeyEnd: end(a.QueryKey),
		SecretEnd: end(a.WebhookSecret), Callback: a.Callback, DefaultGrace: d.keyGrace, MaxGrace: d.maxGrace}
	if a.PrevAPIKey != "" && now.Before(a.PrevKeyTill) {
		c.PrevKeyTill, c.PrevKeyEnd = a.PrevKeyTill, end(a.PrevAPIKey)
	}
	c.WebhooksOnOldKey = a.WebhooksOnOldKey(now)
	if actor.Can(access.RealmMerchant, access.PermKeysRotate) || actor.Can(access.RealmMerchant, access.PermSettingsWrite) {
		ok, err := d.strong.enrolled(ctx, actor)
		if err != nil {
			return nil, err
		}
		c.NeedsTOTP = !ok
	}
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
func (d *Keys) grace(g time.Duration) (time.Duration, error) {
	if g < 0 {
		return d.keyGrace, nil
	}
	if g > d.maxGrace {
		return 0, invalid("the grace period may be at most %s", d.maxGrace)
	}
	return g, nil
}

// RotateAPIKey issues a new API key; the old one keeps verifying for grace
// (negative: the default), so servers can be rolled over without failed
// requests. The change and its audit entry are one transaction.
func (d *Keys) RotateAPIKey(ctx context.Context, actor access.Actor, grace time.Duration) (*Rotated, error) {
	appid, err := d.strong.may(ctx, actor, access.PermKeysRotate)
	if err != nil {
		return nil, err
	}
	if grace, err = d.grace(grace); err != nil {
		return nil, err
	}
	e := entry(d.now(), actor, "merchant.rotate_api_key", "merchant:"+appid, map[string]string{"grace": grace.String()})
	a, err := d.merchants.Audited(e).RotateKey(ctx, appid, grace)
	if err != nil {
		return nil, err
	}
	return &Rotated{Secret: a.APIKey, OldUntil: till(a.PrevAPIKey, a.PrevKeyTill)}, nil
}

// ConfirmWebhookKey is the merchant saying its webhook receiver verifies
// with the new API key: webhooks are MD5-signed with it from now on, while
// the old key keeps verifying requests until its grace ends. The change
// and its audit entry are one transaction.
func (d *Keys) ConfirmWebhookKey(ctx context.Context, actor access.Actor) error {
	appid, err := d.strong.may(ctx, actor, access.PermKeysRotate)
	if err != nil {
		return err
	}
	e := entry(d.now(), actor, "merchant.confirm_webhook_key", "merchant:"+appid, nil)
	_, err = d.merchants.Audited(e).ConfirmWebhookKey(ctx, appid)
	return err
}

// RotateQueryKey issues a new query key; the old one keeps reading for
// grace (negative: the default; 0: stops now, for a key that leaked), so
// status polls do not fail while servers roll over. The change and its
// audit entry are one transaction.
func (d *Keys) RotateQueryKey(ctx context.Context, actor access.Actor, grace time.Duration) (*Rotated, error) {
	appid, err := d.strong.may(ctx, actor, access.PermKeysRotate)
	if err != nil {
		return nil, err
	}
	if grace, err = d.grace(grace); err != nil {
		return nil, err
	}
	e := entry(d.now(), actor, "merchant.rotate_query_key", "merchant:"+appid, map[string]string{"grace": grace.String()})
	a, err := d.merchants.Audited(e).RotateQueryKeyGrace(ctx, appid, grace)
	if err != nil {
		return nil, err
	}
	return &Rotated{Secret: a.QueryKey, OldUntil: till(a.PrevQueryKey, a.PrevQueryTill)}, nil
}

// RotateWebhookSecret issues a new webhook signing secret; for grace
// webhooks carry a signature with the old one as well.
func (d *Keys) RotateWebhookSecret(ctx context.Context, actor access.Actor, grace time.Duration) (*Rotated, error) {
	appid, err := d.strong.may(ctx, actor, access.PermKeysRotate)
	if err != nil {
		return nil, err
	}
	if grace, err = d.grace(grace); err != nil {
		return nil, err
	}
	e := entry(d.now(), actor, "merchant.rotate_webhook_secret", "merchant:"+appid, map[string]string{"grace": grace.String()})
	a, err := d.merchants.Audited(e).RotateWebhookSecret(ctx, appid, grace)
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
