package cryptopsp

import (
	"context"
	"errors"
	"fmt"

	"github.com/paygate/gateway/provider"
)

// MaxNotifyBody bounds an IPN we parse; one is well under 2 KiB.
const MaxNotifyBody = 64 << 10

// Verify checks the x-cryptopsp-sig header over the body's canonical form
// first, then reads the payment from the same parsed fields: our order id,
// the payment id as Ref, the status's outcome and, when finished, the price.
func (a *Adapter) Verify(_ context.Context, r *provider.Request) (provider.Notification, error) {
	if r.Path != "" && r.Path != NotifyPath {
		return provider.Notification{}, fmt.Errorf("cryptopsp: no notification at %q: %w", r.Path, provider.ErrMalformed)
	}
	if len(r.Body) > MaxNotifyBody {
		return provider.Notification{}, fmt.Errorf("cryptopsp: IPN of %d bytes: %w", len(r.Body), provider.ErrMalformed)
	}
	o, err := VerifySignature(a.cfg.IPNSecret, r.Body, r.Header.Get(a.cfg.SignatureHeader))
	switch {
	case errors.Is(err, errMalformedBody):
		return provider.Notification{}, fmt.Errorf("cryptopsp IPN: %w", errors.Join(provider.ErrMalformed, err))
	case err != nil:
		return provider.Notification{}, fmt.Errorf("cryptopsp IPN: %w", errors.Join(provider.ErrSignature, err))
	}
	n, err := readPayment(o)
	if err != nil {
		return provider.Notification{}, fmt.Errorf("cryptopsp IPN: %w", errors.Join(provider.ErrMalformed, err))
	}
	return n, nil
}
