package bsc

import (
	"errors"
	"regexp"
	"time"

	"github.com/paygate/gateway/usdt/internal/wire"
)

// Config is the connection to one JSON-RPC endpoint.
type Config struct {
	URL     string        // the JSON-RPC endpoint, e.g. https://bsc-dataseed.bnbchain.org
	Timeout time.Duration // per call; 10 s when zero
}

func (c Config) withDefaults() Config {
	c.URL = wire.Trim(c.URL)
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	return c
}

// Validate reports a configuration the client cannot use.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	if err := wire.CheckURL("bsc JSON-RPC URL", c.URL); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

var (
	hashForm    = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)
	addressForm = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
)

// ValidHash reports whether s has the form of a transaction hash: 0x and
// 64 hex digits.
func ValidHash(s string) bool { return hashForm.MatchString(s) }

// ValidAddress reports whether s has the form of an address: 0x and 40 hex
// digits (any case; the client answers lower case).
func ValidAddress(s string) bool { return addressForm.MatchString(s) }
