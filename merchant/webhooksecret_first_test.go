package merchant

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/paygate/gateway/schema"
)

// TestEnsureWebhookSecretStamps: an account made before webhook secrets
// existed gets its first one stamped with the time it was issued; asking
// again (a racing dispatcher) keeps the secret and the stamp; an account
// created with a secret is not stamped (its secret dates from its
// creation); an unknown account is not found and not made.
func TestEnsureWebhookSecretStamps(t *testing.T) {
	s, mr := newStore(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	old, err := s.Create(ctx, NewAccount{Name: "old shop"})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := s.Create(ctx, NewAccount{Name: "new shop"})
	if err != nil {
		t.Fatal(err)
	}
	mr.HDel(schema.MerchantKey(old.AppID), fWHSecret) // as before secrets existed
	now = now.Add(50 * 24 * time.Hour)
	first, err := s.EnsureWebhookSecret(ctx, old.AppID)
	if err != nil || first.WebhookSecret == "" || !first.WebhookSecretRotatedAt.Equal(now) {
		t.Fatalf("first secret: %q at %v, %v; want stamped %v", first.WebhookSecret, first.WebhookSecretRotatedAt, err, now)
	}
	now = now.Add(time.Hour)
	again, err := s.EnsureWebhookSecret(ctx, old.AppID)
	if err != nil || again.WebhookSecret != first.WebhookSecret || !again.WebhookSecretRotatedAt.Equal(first.WebhookSecretRotatedAt) {
		t.Fatalf("again: %q at %v, %v", again.WebhookSecret, again.WebhookSecretRotatedAt, err)
	}
	kept, err := s.EnsureWebhookSecret(ctx, fresh.AppID)
	if err != nil || kept.WebhookSecret != fresh.WebhookSecret || !kept.WebhookSecretRotatedAt.IsZero() {
		t.Fatalf("an account with a secret: %q at %v, %v", kept.WebhookSecret, kept.WebhookSecretRotatedAt, err)
	}
	if _, err := s.EnsureWebhookSecret(ctx, "999999"); !errors.Is(err, ErrNotFound) || mr.Exists(schema.MerchantKey("999999")) {
		t.Fatalf("unknown account: %v", err)
	}
}
