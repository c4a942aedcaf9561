package platform

import (
	"errors"
	"time"
)

// PayoutSettings are the payouts' policy as the environment sets it
// (payout.Config checks the bounds when the store is built).
type PayoutSettings struct {
	// CoolingOff is how long a new payout destination waits before it
	// may be paid to (GATEWAY_PAYOUT_COOLING_OFF).
	CoolingOff time.Duration
	// CheckerWindow is how long an operator who changed a merchant's
	// payout destinations or terms may not decide its payouts
	// (GATEWAY_PAYOUT_CHECKER_WINDOW).
	CheckerWindow time.Duration
	// IdempotencyTTL is how long a requestId of POST /api/payouts names
	// its payout (GATEWAY_PAYOUT_IDEMPOTENCY_TTL): at least twice the
	// signed timestamp's 5-minute window, so no replay the window admits
	// finds the requestId forgotten.
	IdempotencyTTL time.Duration
	// MaxDestinations bounds a merchant's saved destinations
	// (GATEWAY_PAYOUT_MAX_DESTINATIONS).
	MaxDestinations int
}

// PayoutDefaults are payout.Defaults: 24 h, 24 h, 24 h, 20.
func PayoutDefaults() PayoutSettings {
	return PayoutSettings{CoolingOff: 24 * time.Hour, CheckerWindow: 24 * time.Hour, IdempotencyTTL: 24 * time.Hour, MaxDestinations: 20}
}

func (p *PayoutSettings) bind(b *Binder) {
	b.Duration(&p.CoolingOff, "payout-cooling-off", "GATEWAY_PAYOUT_COOLING_OFF", "how long a new payout destination waits before payouts may go to it (0 to 720h)")
	b.Duration(&p.CheckerWindow, "payout-checker-window", "GATEWAY_PAYOUT_CHECKER_WINDOW", "how long an operator who changed a merchant's payout destinations or terms may not approve its payouts (0 to 720h)")
	b.Duration(&p.IdempotencyTTL, "payout-idempotency-ttl", "GATEWAY_PAYOUT_IDEMPOTENCY_TTL", "how long a requestId of POST /api/payouts names its payout (at least 10m)")
	b.Int(&p.MaxDestinations, "payout-max-destinations", "GATEWAY_PAYOUT_MAX_DESTINATIONS", "most payout destinations one merchant keeps, removed ones included (1 to 1000)")
}

func (p PayoutSettings) validate() error {
	const month = 30 * 24 * time.Hour
	var errs []error
	if p.CoolingOff < 0 || p.CoolingOff > month || p.CheckerWindow < 0 || p.CheckerWindow > month {
		errs = append(errs, errors.New("payout-cooling-off and payout-checker-window must be from 0 to 720h"))
	}
	if p.IdempotencyTTL < 10*time.Minute {
		errs = append(errs, errors.New("payout-idempotency-ttl must be at least 10m (twice the signed timestamp's window)"))
	}
	if p.MaxDestinations < 1 || p.MaxDestinations > 1000 {
		errs = append(errs, errors.New("payout-max-destinations must be from 1 to 1000"))
	}
	return errors.Join(errs...)
}
