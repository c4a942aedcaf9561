package access

import (
	"errors"
	"time"

	"github.com/paygate/gateway/platform"
)

// Config bounds sessions, setup tokens and login attempts.
type Config struct {
	IdleTimeout     time.Duration  // a session unused this long ends (default 30 min)
	AbsoluteTimeout time.Duration  // a session ends this long after login, used or not (default 12 h)
	SetupTTL        time.Duration  // a setup link works this long (default 72 h)
	PerIP           platform.Limit // login attempts per client IP (default 10/min, burst 10)
	PerAccount      platform.Limit // login attempts per account (default 5/min, burst 5)
	Issuer          string         // the issuer authenticator apps show (default "Gateway")
	RecoveryCodes   int            // recovery codes per enrolment (default 10)
	// SecondFactorLimit is how many wrong second factors in a row, after a
	// right password, lock TOTP (default 10): with a stolen password the
	// per-account limit alone would let guesses go on forever.
	SecondFactorLimit int
	Clock             platform.Clock // nil: the system clock
}

// Defaults is the configuration the consoles run with unless told.
func Defaults() Config {
	return Config{
		IdleTimeout:     30 * time.Minute,
		AbsoluteTimeout: 12 * time.Hour,
		SetupTTL:        72 * time.Hour,
		PerIP:           platform.Limit{PerSecond: 10.0 / 60, Burst: 10},
		PerAccount:      platform.Limit{PerSecond: 5.0 / 60, Burst: 5},
		Issuer:          "Gateway",
		RecoveryCodes:   10,

		SecondFactorLimit: 10,
	}
}

// Validate reports every bad value at once.
func (c Config) Validate() error {
	var errs []error
	if c.IdleTimeout < time.Minute || c.AbsoluteTimeout < c.IdleTimeout {
		errs = append(errs, errors.New("access: idle timeout must be at least a minute and the absolute timeout at least the idle one"))
	}
	if c.SetupTTL < time.Minute {
		errs = append(errs, errors.New("access: setup link lifetime must be at least a minute"))
	}
	if c.PerIP.PerSecond <= 0 || c.PerIP.Burst < 1 || c.PerAccount.PerSecond <= 0 || c.PerAccount.Burst < 1 {
		errs = append(errs, errors.New("access: login limits must be positive"))
	}
	if c.SecondFactorLimit < 1 || c.SecondFactorLimit > 100 {
		errs = append(errs, errors.New("access: the second factor limit must be 1 to 100"))
	}
	if c.Issuer == "" || c.RecoveryCodes < 1 || c.RecoveryCodes > 50 {
		errs = append(errs, errors.New("access: an issuer and 1 to 50 recovery codes are required"))
	}
	return errors.Join(errs...)
}
