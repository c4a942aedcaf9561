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
// its first one, at its first webhook. It is one transaction with HSETNX,
// so dispatchers racing on it agree on one secret; an account that has one
// keeps it.
func (s *Store) EnsureWebhookSecret(ctx context.Context, appid string) (*Account, error) {
	n, err := s.rdb.Exists(ctx, schema.MerchantKey(appid)).Result()
	if err != nil {
		return nil, fmt.Errorf("read merchant %s: %w", appid, err)
	}
	if n == 0 {
		return nil, ErrNotFound
	}
	_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSetNX(ctx, schema.MerchantKey(appid), fWHSecret, NewWebhookSecret())
		p.Incr(ctx, schema.MerchantsVersionKey)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("give merchant %s a webhook secret: %w", appid, err)
	}
	return s.Get(ctx, appid)
}
