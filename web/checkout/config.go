package checkout

import (
	"errors"
	"strings"
	"time"
)

// Config holds the page settings. The polling figures are SPEC.md's Limits
// table; tests shorten them.
type Config struct {
	PublicURL     string
	PollInterval  time.Duration // how often an open page asks for the status
	PollTimeout   time.Duration // when it stops asking and offers "check again"
	RedirectDelay time.Duration // from paid to return_url
	// CSRFKey signs the forms' tokens; every command node must share it.
	// Empty, Prepare fetches the key every node shares from Deps.Keys.
	CSRFKey []byte
	// MaxFormBytes bounds a page's form; a bigger one changes nothing.
	MaxFormBytes int
	// MethodNames are the deployment's names of methods for payers
	// (GATEWAY_METHOD_NAMES); the catalogue's neutral words otherwise.
	MethodNames MethodNames
}

// Defaults are SPEC.md's figures.
func Defaults() Config {
	return Config{PollInterval: 4 * time.Second, PollTimeout: 3 * time.Minute, RedirectDelay: time.Second, MaxFormBytes: 8 << 10}
}

// Validate checks c.
func (c Config) Validate() error {
	var errs []error
	if c.PublicURL == "" {
		errs = append(errs, errors.New("checkout: public URL is empty"))
	}
	if c.PollInterval <= 0 || c.PollTimeout < c.PollInterval || c.RedirectDelay < 0 {
		errs = append(errs, errors.New("checkout: poll interval, poll timeout and redirect delay must be positive, timeout ≥ interval"))
	}
	if len(c.CSRFKey) > 0 && len(c.CSRFKey) < 32 {
		errs = append(errs, errors.New("checkout: CSRF key must be at least 32 bytes"))
	}
	if err := c.MethodNames.validate(); err != nil {
		errs = append(errs, err)
	}
	if c.MaxFormBytes < 512 {
		errs = append(errs, errors.New("checkout: max form bytes below 512"))
	}
	return errors.Join(errs...)
}

// secure reports whether cookies must be Secure: the payer reaches us over
// https.
func (c Config) secure() bool { return strings.HasPrefix(c.PublicURL, "https://") }
