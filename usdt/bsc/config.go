package bsc

import (
	"errors"
	"regexp"
	"time"

	"github.com/paygate/gateway/usdt/internal/wire"
)

// Config is the connection to one JSON-RPC endpoint.
type Config struct {
	BaseURL string        // the JSON-RPC endpoint, e.g. https://bsc-dataseed.bnbchain.org
	Timeout time.Duration // per call
}

// Defaults is a connection with a 10 s bound per call; the endpoint is the
// operator's.
func Defaults() Config { return Config{Timeout: 10 * time.Second} }

// Validate lists every problem of the configuration at once.
func (c Config) Validate() error {
	return errors.Join(wire.CheckURL("bsc JSON-RPC URL", c.BaseURL), wire.CheckTimeout("bsc", c.Timeout))
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
