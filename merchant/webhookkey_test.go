package merchant

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestWebhookKey: the MD5 sign of a webhook uses the old API key while a
// rotation's grace runs and the merchant has not confirmed the switch, and
// the current key otherwise.
func TestWebhookKey(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	rotated := Account{APIKey: "NEW", PrevAPIKey: "OLD", PrevKeyTill: now.Add(time.Hour)}
	confirmed := rotated
	confirmed.WebhookKeyConfirmed = keyDigest("NEW")
	earlier := rotated // confirmed a rotation before this one
	earlier.WebhookKeyConfirmed = keyDigest("OLD")
	tests := []struct {
		name string
		acct Account
		at   time.Time
		want string
	}{
		{"never rotated", Account{APIKey: "NEW"}, now, "NEW"},
		{"previous key without a grace", Account{APIKey: "NEW", PrevAPIKey: "OLD"}, now, "NEW"},
		{"in grace, not confirmed", rotated, now, "OLD"},
		{"last moment of grace", rotated, now.Add(time.Hour - time.Millisecond), "OLD"},
		{"grace ended", rotated, now.Add(time.Hour), "NEW"},
		{"in grace, confirmed", confirmed, now, "NEW"},
		{"in grace, confirmation of an earlier key", earlier, now, "OLD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.acct.WebhookKey(tt.at); got != tt.want {
				t.Fatalf("WebhookKey = %s, want %s", got, tt.want)
			}
			if on := tt.acct.WebhooksOnOldKey(tt.at); on != (tt.want == "OLD") {
				t.Fatalf("WebhooksOnOldKey = %v with key %s", on, tt.want)
			}
		})
	}
}

// TestConfirmWebhookKey: confirming switches webhooks to the new key and
// leaves the old key verifying requests until its grace ends; with no
// grace waiting it is refused; a later rotation needs its own confirmation.
func TestConfirmWebhookKey(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	a, err := s.Create(ctx, NewAccount{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ConfirmWebhookKey(ctx, a.AppID); !errors.Is(err, ErrNoWebhookKeyGrace) {
		t.Fatalf("confirm without a rotation: %v", err)
	}
	r, err := s.RotateKey(ctx, a.AppID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.WebhookKey(now); got != a.APIKey {
		t.Fatalf("webhooks signed with %q after the rotation, want the old key", got)
	}
	c, err := s.ConfirmWebhookKey(ctx, a.AppID)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.WebhookKey(now); got != r.APIKey {
		t.Fatalf("webhooks signed with %q after the confirmation, want the new key", got)
	}
	if keys := c.SignKeys(now); len(keys) != 2 {
		t.Fatalf("the confirmation ended the old key's grace for requests: %v", keys)
	}
	if _, err := s.ConfirmWebhookKey(ctx, a.AppID); !errors.Is(err, ErrNoWebhookKeyGrace) {
		t.Fatalf("second confirmation: %v", err)
	}
	r2, err := s.RotateKey(ctx, a.AppID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if got := r2.WebhookKey(now); got != r.APIKey {
		t.Fatalf("a later rotation inherited the confirmation: webhooks signed with %q", got)
	}
}
