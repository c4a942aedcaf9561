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
	Timeout time.Duration // per call
}

// APIKeyHeader is TronGrid's header for the API key.
const APIKeyHeader = "TRON-PRO-API-KEY"

// Defaults is a connection with a 10 s bound per call; the node and the
// key are the operator's.
func Defaults() Config { return Config{Timeout: 10 * time.Second} }

// Validate lists every problem of the configuration at once.
func (c Config) Validate() error {
	return errors.Join(wire.CheckURL("tron base URL", c.BaseURL), wire.CheckTimeout("tron", c.Timeout))
}

var hashForm = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)

// ValidHash reports whether s has the form of a TRON transaction id: 64 hex
// digits, no 0x.
func ValidHash(s string) bool { return hashForm.MatchString(s) }
