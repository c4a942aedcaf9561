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

// Paths of the calls, under the base URL.
const (
	DepositPath         = "/sapi/v1/capital/deposit/hisrec"
	PayPath             = "/sapi/v1/pay/transactions"
	WithdrawPath        = "/sapi/v1/capital/withdraw/apply"   // POST
	WithdrawHistoryPath = "/sapi/v1/capital/withdraw/history" // GET
)

// Config is one account at the exchange.
type Config struct {
	BaseURL string        // e.g. https://api.binance.com
	APIKey  string        // sent in X-MBX-APIKEY
	Secret  string        // signs every request; never sent
	Timeout time.Duration // per call
	// Now is the clock that stamps requests. The exchange refuses a
	// timestamp outside its receive window.
	Now func() time.Time
}

// Defaults is an account with a 10 s bound per call and the system clock;
// the address and the credentials are the operator's.
func Defaults() Config { return Config{Timeout: 10 * time.Second, Now: time.Now} }

// Validate lists every problem of the configuration at once.
func (c Config) Validate() error {
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
	return errors.Join(append(errs, wire.CheckTimeout("exchange", c.Timeout))...)
}

// Sandbox credentials: public test values the sandbox's client and
// simulator share.
const (
	SandboxAPIKey = "sandbox-exchange-api-key-5c21"
	SandboxSecret = "sandbox-exchange-secret-90be"
)
