package merchant

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/gateway/schema"
)

// WebhookSecretPrefix marks a webhook signing secret, as the Standard
// Webhooks specification writes them: whsec_ then the key in base64.
const WebhookSecretPrefix = "whsec_"

// NewWebhookSecret is 32 random bytes (the specification asks for 24 to 64)
// in the whsec_ form merchants paste into their verification libraries.
func NewWebhookSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return WebhookSecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// WebhookSecrets are the secrets a webhook is signed with now: the current
// one, and during a rotation's grace period the previous one too, so that a
// receiver still holding the old secret keeps verifying until it switches.
func (a *Account) WebhookSecrets(now time.Time) []string {
	if a.WebhookSecret == "" {
		return nil
	}
	if a.PrevWebhookSecret != "" && now.Before(a.PrevWebhookTill) {
		return []string{a.WebhookSecret, a.PrevWebhookSecret}
	}
	return []string{a.WebhookSecret}
}

// RotateWebhookSecret issues a new webhook secret; for grace, webhooks are
// signed with the old one as well, so that a merchant can roll its
// receivers over without a webhook failing verification.
func (s *Store) RotateWebhookSecret(ctx context.Context, appid string, grace time.Duration) (*Account, error) {
	old, err := s.Get(ctx, appid)
	if err != nil {
		return nil, err
	}
	f := map[string]any{fWHSecret: NewWebhookSecret(), fWHPrev: "", fWHTill: "0", fWHAt: ms(s.now())}
	if grace > 0 && old.WebhookSecret != "" {
		f[fWHPrev] = old.WebhookSecret
		f[fWHTill] = ms(s.now().Add(grace))
	}
	return s.update(ctx, appid, f)
}

// EnsureWebhookSecret gives an account made before webhook secrets existed
// its first one, at its first webhook, stamped with the time it was issued
// (the operator's key-age view reads the stamp, as after a rotation). It is
// one script with HSETNX, so dispatchers racing on it agree on one secret
// and one stamp; an account that has a secret keeps it and its stamp.
func (s *Store) EnsureWebhookSecret(ctx context.Context, appid string) (*Account, error) {
	n, err := ensureSecretScript.Run(ctx, s.rdb, []string{schema.MerchantKey(appid), schema.MerchantsVersionKey},
		fWHSecret, NewWebhookSecret(), fWHAt, ms(s.now())).Int()
	if err != nil {
		return nil, fmt.Errorf("give merchant %s a webhook secret: %w", appid, err)
	}
	if n < 0 {
		return nil, ErrNotFound
	}
	return s.Get(ctx, appid)
}

// ensureSecretScript sets the secret and its stamp only where there is no
// secret, and bumps the accounts' version only then (the directory's
// caches reload on it). -1: no such account.
var ensureSecretScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[3], ARGV[4])
redis.call('INCR', KEYS[2])
return 1
`)
