package exchange

import (
	"errors"
	"time"

	"github.com/paygate/gateway/usdt/internal/wire"
)

// APIKeyHeader carries the API key.
const APIKeyHeader = "X-MBX-APIKEY"

// RecvWindow is how long, in milliseconds, a signed request stays valid
// after its timestamp.
const RecvWindow = 5000

// Paths of the two calls, under the base URL.
const (
	DepositPath = "/sapi/v1/capital/deposit/hisrec"
	PayPath     = "/sapi/v1/pay/transactions"
)

// Config is one account at the exchange.
type Config struct {
	BaseURL string        // e.g. https://api.binance.com
	APIKey  string        // sent in X-MBX-APIKEY
	Secret  string        // signs every request; never sent
	Timeout time.Duration // per call; 10 s when zero
	// Now is the clock that stamps requests; time.Now when nil. The
	// exchange refuses a timestamp outside its receive window.
	Now func() time.Time
}

func (c Config) withDefaults() Config {
	c.BaseURL = wire.Trim(c.BaseURL)
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Validate lists every problem of the configuration.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	if err := wire.CheckURL("exchange base URL", c.BaseURL); err != nil {
		errs = append(errs, err)
	}
	if c.APIKey == "" {
		errs = append(errs, errors.New("exchange API key is empty"))
	}
	if c.Secret == "" {
		errs = append(errs, errors.New("exchange secret is empty"))
	}
	return errors.Join(errs...)
}
