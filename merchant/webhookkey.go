package merchant

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"time"

	"github.com/paygate/gateway/platform"
)

// During an API key rotation's grace period the merchant's requests may be
// signed with either key, and its webhook receiver, promised the same
// grace, may still verify with the old one only. SPEC.md's MD5 sign can
// carry one key, so for the grace webhooks are MD5-signed with the old key,
// the one every receiver of the merchant still knows, until the grace ends
// or the merchant confirms that its receiver holds the new key. The
// webhook-signature header is not concerned: its whsec_ secret is rotated
// on its own and carries both secrets during its grace.

// fHookKeyOK is the hash field of the confirmation: keyDigest of the API
// key the merchant confirmed.
const fHookKeyOK = "webhookKeyConfirmed"

// WebhookKey is the API key the MD5 sign of a webhook made at now uses.
func (a *Account) WebhookKey(now time.Time) string {
	if a.WebhooksOnOldKey(now) {
		return a.PrevAPIKey
	}
	return a.APIKey
}

// WebhooksOnOldKey says whether webhooks made at now are MD5-signed with
// the previous API key: its grace runs and the merchant has not confirmed
// the switch to the current key.
func (a *Account) WebhooksOnOldKey(now time.Time) bool {
	return a.PrevAPIKey != "" && now.Before(a.PrevKeyTill) && !a.webhookKeyConfirmed()
}

// webhookKeyConfirmed says whether the confirmation on record is for the
// current API key. It names the key it confirmed (by digest), so a
// confirmation never carries over to a later rotation, even one that
// raced it, and rotating needs to clear nothing.
func (a *Account) webhookKeyConfirmed() bool {
	want := keyDigest(a.APIKey)
	return subtle.ConstantTimeCompare([]byte(a.WebhookKeyConfirmed), []byte(want)) == 1
}

// keyDigest stands for an API key in the confirmation, so that the hash
// does not hold a second copy of the secret.
func keyDigest(key string) string {
	sum := sha256.Sum256([]byte("webhook-key-confirmed:" + key))
	return hex.EncodeToString(sum[:])
}

// ErrNoWebhookKeyGrace answers a confirmation with nothing to confirm:
// webhooks are already signed with the current key.
var ErrNoWebhookKeyGrace = platform.Errorf(platform.KindInvalidParameter,
	"webhooks are already signed with the current API key: no rotation's grace period is waiting for a confirmation")

// ConfirmWebhookKey records that the merchant's webhook receiver verifies
// with the current API key: webhooks are MD5-signed with it from now on,
// while the previous key still verifies the merchant's requests until its
// grace ends.
func (s *Store) ConfirmWebhookKey(ctx context.Context, appid string) (*Account, error) {
	a, err := s.Get(ctx, appid)
	if err != nil {
		return nil, err
	}
	if !a.WebhooksOnOldKey(s.now()) {
		return nil, ErrNoWebhookKeyGrace
	}
	return s.update(ctx, appid, map[string]any{fHookKeyOK: keyDigest(a.APIKey)})
}
