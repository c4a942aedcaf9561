package dispatcher

import (
	"context"
	"errors"

	"github.com/paygate/gateway/platform"
)

// Resend queues a manual attempt of appid's order (refundID "": its paid
// webhook) for a caller that has authenticated the merchant otherwise
// (the merchant console's session), with the API's answers: 404 when
// there is no such delivery of the merchant's, 409 while one is in flight.
func (a *ResendAPI) Resend(ctx context.Context, appid, paymentID, refundID string) error {
	err := a.hooks.ResendFor(ctx, appid, paymentID, refundID)
	switch {
	case errors.Is(err, ErrNoDelivery):
		return platform.Errorf(platform.KindNotFound, "order %s has no webhook delivery to resend (not paid, no notify_url, or expired)", paymentID)
	case errors.Is(err, ErrInFlight):
		return platform.Errorf(platform.KindConflict, "a webhook attempt of order %s is in flight; try again when it is recorded", paymentID)
	}
	return err
}
