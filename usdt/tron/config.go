package tron

import (
	"errors"
	"regexp"
	"time"

	"github.com/paygate/gateway/usdt/internal/wire"
)

// Config is the connection to one TRON full node.
type Config struct {
	BaseURL string        // e.g. https://api.trongrid.io; the calls are under BaseURL+"/wallet/"
	APIKey  string        // sent as TRON-PRO-API-KEY when set (TronGrid's rate-limit key)
	Timeout time.Duration // per call; 10 s when zero
}

// APIKeyHeader is TronGrid's header for the API key.
const APIKeyHeader = "TRON-PRO-API-KEY"

func (c Config) withDefaults() Config {
	c.BaseURL = wire.Trim(c.BaseURL)
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	return c
}

// Validate reports a configuration the client cannot use.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	if err := wire.CheckURL("tron base URL", c.BaseURL); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

var hashForm = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)

// ValidHash reports whether s has the form of a TRON transaction id: 64 hex
// digits, no 0x.
func ValidHash(s string) bool { return hashForm.MatchString(s) }
