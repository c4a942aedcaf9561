package exchange

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	family "github.com/paygate/gateway/usdt/exchange"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/web/sandbox/usdt/usdtsim"
)

// PayFailureID is the Fail id that makes the Pay history endpoint
// misbehave (it is not queried by any hash).
const PayFailureID = "pay-history"

// SimConfig is the simulated account; the zero value is the sandbox's.
type SimConfig struct {
	APIKey  string           // family.SandboxAPIKey when empty
	Secret  string           // family.SandboxSecret when empty
	Now     func() time.Time // the exchange's clock, for the receive window; time.Now when nil
	KeepFor time.Duration    // how long a record is remembered; 30 days when zero
	Hang    time.Duration    // the longest a Hang failure holds an answer; 30 s when zero
	// CompleteAfter is how long an accepted withdrawal is processing
	// before the history shows it completed with its transaction; zero:
	// completed at once.
	CompleteAfter time.Duration
}

// Sim is the exchange's signed REST API for one account, knowing only the
// deposits and payments a tester made and the withdrawals applied for; they live in a provider.State, so
// every gateway process answers alike.
type Sim struct {
	cfg   SimConfig
	store usdtsim.Store
}

// NewSim builds the simulator over state.
func NewSim(cfg SimConfig, state provider.State) *Sim {
	if cfg.APIKey == "" {
		cfg.APIKey = family.SandboxAPIKey
	}
	if cfg.Secret == "" {
		cfg.Secret = family.SandboxSecret
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Sim{cfg: cfg, store: usdtsim.Store{State: state, Prefix: "usdtsim:exchange:", KeepFor: cfg.KeepFor, Hang: cfg.Hang}}
}

// Register mounts the API relative to r: r's prefix is the client's
// BaseURL.
func (s *Sim) Register(r fiber.Router) {
	r.Get(family.DepositPath, adaptor.HTTPHandlerFunc(s.deposits))
	r.Get(family.PayPath, adaptor.HTTPHandlerFunc(s.payments))
	r.Post(family.WithdrawPath, adaptor.HTTPHandlerFunc(s.apply))
	r.Get(family.WithdrawHistoryPath, adaptor.HTTPHandlerFunc(s.history))
}

// Handler is the same API as a plain net/http handler rooted at "/", for
// httptest servers.
func (s *Sim) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+family.DepositPath, s.deposits)
	mux.HandleFunc("GET "+family.PayPath, s.payments)
	mux.HandleFunc("POST "+family.WithdrawPath, s.apply)
	mux.HandleFunc("GET "+family.WithdrawHistoryPath, s.history)
	return mux
}

// DepositSpec is a deposit the exchange reports.
type DepositSpec struct {
	TxID    string    // the chain's transaction hash; required
	Network string    // TRX, BSC; required
	Address string    // our deposit address; required
	Amount  string    // decimal literal, e.g. "12.347061"; required
	Coin    string    // USDT when empty
	Status  int       // 1 success, 0 pending, 6 credited but locked, 7 wrong deposit, ...
	At      time.Time // insert time; now when zero
}

// AddDeposit records a deposit; a second one with the same TxID replaces
// it (a pending deposit that becomes credited).
func (s *Sim) AddDeposit(ctx context.Context, spec DepositSpec) error {
	if spec.TxID == "" || spec.Network == "" || spec.Address == "" || spec.Amount == "" {
		return errors.New("exchange simulator: a deposit needs TxID, Network, Address and Amount")
	}
	if spec.Coin == "" {
		spec.Coin = "USDT"
	}
	if spec.At.IsZero() {
		spec.At = s.cfg.Now()
	}
	row := family.DepositRow{Amount: spec.Amount, Coin: spec.Coin, Network: spec.Network, Status: spec.Status,
		Address: spec.Address, TxID: spec.TxID, InsertTime: spec.At.UnixMilli()}
	if err := s.store.Put(ctx, "deposit", strings.ToLower(spec.TxID), row); err != nil {
		return fmt.Errorf("exchange simulator: %w", err)
	}
	return nil
}

// PaymentSpec is a Pay transaction the exchange reports.
type PaymentSpec struct {
	OrderID  string    // our order id, as merchantTradeNo; required
	Amount   string    // decimal literal; negative for a refund; required
	Currency string    // USDT when empty
	Refund   bool      // a PAY_REFUND instead of a PAY
	At       time.Time // transaction time; now when zero
}

// AddPayment records a Pay transaction and returns its transactionId.
// The history is one record of the newest PayLimit transactions: two
// processes adding at once may lose one, which the sandbox can afford.
func (s *Sim) AddPayment(ctx context.Context, spec PaymentSpec) (string, error) {
	if spec.OrderID == "" || spec.Amount == "" {
		return "", errors.New("exchange simulator: a payment needs OrderID and Amount")
	}
	id, err := usdtsim.RandomHex(8)
	if err != nil {
		return "", fmt.Errorf("exchange simulator: %w", err)
	}
	row := family.PayRow{OrderType: "PAY", TransactionID: "M_P_" + id, TransactionTime: spec.At.UnixMilli(),
		Amount: spec.Amount, Currency: spec.Currency, MerchantTradeNo: spec.OrderID}
	if spec.Refund {
		row.OrderType = "PAY_REFUND"
	}
	if row.Currency == "" {
		row.Currency = "USDT"
	}
	if spec.At.IsZero() {
		row.TransactionTime = s.cfg.Now().UnixMilli()
	}
	var rows []family.PayRow
	if _, err := s.store.Get(ctx, "pay", "history", &rows); err != nil {
		return "", fmt.Errorf("exchange simulator: %w", err)
	}
	rows = append([]family.PayRow{row}, rows[:min(len(rows), family.PayLimit-1)]...)
	if err := s.store.Put(ctx, "pay", "history", rows); err != nil {
		return "", fmt.Errorf("exchange simulator: %w", err)
	}
	return row.TransactionID, nil
}

// Fail makes the deposit history misbehave for txID, or the Pay history
// for PayFailureID (usdtsim.Healthy heals it).
func (s *Sim) Fail(ctx context.Context, id string, f usdtsim.Failure) error {
	if err := s.store.SetFailure(ctx, strings.ToLower(id), f); err != nil {
		return fmt.Errorf("exchange simulator: %w", err)
	}
	return nil
}

// SandboxPath is where the gateway mounts this simulator under its public
// URL; the sandbox client's base is publicURL + SandboxPath.
const SandboxPath = "/sandbox/usdt/exchange"
