package cryptohost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/wire"
)

// MaxNotifyBody bounds a webhook we parse; a charge event is a few KiB.
const MaxNotifyBody = 64 << 10

// Webhook is the delivery: an envelope around one event on one charge.
type Webhook struct {
	ID           string `json:"id"`
	ScheduledFor string `json:"scheduled_for,omitempty"`
	Attempt      int    `json:"attempt_number,omitempty"`
	Event        struct {
		ID         string `json:"id"`
		Resource   string `json:"resource,omitempty"`
		Type       string `json:"type"`
		APIVersion string `json:"api_version,omitempty"`
		CreatedAt  string `json:"created_at,omitempty"`
		Data       Charge `json:"data"`
	} `json:"event"`
}

// Verify checks the signature over the raw body first, then reads the
// event: our order id from the charge's metadata, the charge code as Ref,
// and the outcome from the event type and the charge's payments.
func (a *Adapter) Verify(_ context.Context, r *provider.Request) (provider.Notification, error) {
	if r.Path != "" && r.Path != NotifyPath {
		return provider.Notification{}, fmt.Errorf("cryptohost: no notification at %q: %w", r.Path, provider.ErrMalformed)
	}
	if len(r.Body) > MaxNotifyBody {
		return provider.Notification{}, fmt.Errorf("cryptohost: webhook of %d bytes: %w", len(r.Body), provider.ErrMalformed)
	}
	if err := VerifySignature(a.cfg.WebhookSecret, r.Body, r.Header.Get(a.cfg.SignatureHeader)); err != nil {
		return provider.Notification{}, fmt.Errorf("cryptohost webhook: %w", errors.Join(provider.ErrSignature, err))
	}
	var w Webhook
	if err := json.Unmarshal(r.Body, &w); err != nil {
		return provider.Notification{}, fmt.Errorf("cryptohost webhook: %w", errors.Join(provider.ErrMalformed, err))
	}
	c := &w.Event.Data
	switch {
	case w.Event.Type == "":
		return provider.Notification{}, fmt.Errorf("cryptohost webhook: no event type: %w", provider.ErrMalformed)
	case c.Metadata.OrderID == "":
		return provider.Notification{}, fmt.Errorf("cryptohost webhook: no order id in the charge's metadata: %w", provider.ErrMalformed)
	case !wire.IsRef(c.Code):
		return provider.Notification{}, fmt.Errorf("cryptohost webhook: no charge code: %w", provider.ErrMalformed)
	}
	fields := chargeFields(c)
	fields["event_id"] = clip(w.Event.ID)
	fields["event_type"] = clip(w.Event.Type)
	o, paid, err := judge(c, eventOutcome(w.Event.Type, c), fields)
	if err != nil {
		return provider.Notification{}, fmt.Errorf("cryptohost webhook: %w", errors.Join(provider.ErrMalformed, err))
	}
	return provider.Notification{OrderID: c.Metadata.OrderID, Ref: c.Code, InitRef: c.Code, Outcome: o, Paid: paid, Fields: fields}, nil
}

// clip bounds a field kept for support.
func clip(s string) string {
	if len(s) > 128 {
		return s[:128]
	}
	return s
}
