package cryptopsp

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	family "github.com/paygate/gateway/provider/cryptopsp"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/web/sandbox"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

// SimConfig is the simulator's side of the sandbox credentials.
type SimConfig struct {
	BaseURL         string // the simulator's own public base, for invoice URLs
	APIKey          string
	IPNSecret       string
	APIKeyHeader    string
	SignatureHeader string
	KeepFor         time.Duration // how long the simulator remembers an invoice
	// Cost is what the account charges on each payment, kept as the fee of
	// its statement line (the channel's configured cost in the sandbox).
	Cost simkit.Cost
}

// WithCost is c charging cost.
func (c SimConfig) WithCost(cost simkit.Cost) SimConfig { c.Cost = cost; return c }

// SandboxSimConfig is the simulator mounted at baseURL with the sandbox
// credentials of SandboxConfig.
func SandboxSimConfig(baseURL string) SimConfig {
	return SimConfig{BaseURL: strings.TrimRight(baseURL, "/"), APIKey: family.SandboxAPIKey, IPNSecret: family.SandboxIPNSecret,
		APIKeyHeader: family.DefaultAPIKeyHeader, SignatureHeader: family.DefaultSignatureHeader, KeepFor: 7 * 24 * time.Hour}
}

// simCoins are the simulator's cryptocurrencies: a fixed USD price and a
// fixed minimum in the coin. BTC's minimum is worth 30 USD, so a small USD
// order is under it; the others are cheaper to reach.
var simCoins = map[string]struct{ usd, min string }{
	"btc":       {"60000", "0.0005"},
	"eth":       {"3000", "0.005"},
	"ltc":       {"80", "0.1"},
	"trx":       {"0.12", "20"},
	"usdttrc20": {"1", "2"},
}

// simFiat are the price currencies, in units per USD.
var simFiat = map[string]string{"usd": "1", "eur": "0.92", "gbp": "0.79", "brl": "5", "nzd": "1.65"}

// Simulator answers the provider's API (currencies, minimum amounts,
// invoices, payment status), shows the invoice page and sends IPNs signed
// with the sandbox IPN secret.
type Simulator struct {
	cfg    SimConfig
	state  provider.State
	n      *provider.Notifier
	log    *slog.Logger
	faults *sandbox.FaultSwitch // the tester's switch: restricted, hang, reset
}

// NewSimulator builds the simulator; its invoices live in state.
func NewSimulator(cfg SimConfig, state provider.State, n *provider.Notifier, log *slog.Logger) *Simulator {
	log = simkit.Logger(log)
	return &Simulator{cfg: cfg, state: state, n: n, log: log, faults: sandbox.NewFaultSwitch(state, cfg.BaseURL, log)}
}

// Register mounts the API and the invoice page relative to r.
func (s *Simulator) Register(r fiber.Router) {
	r.Get("/v1/currencies", s.currencies)
	r.Get("/v1/min-amount", s.minAmount)
	r.Post("/v1/invoice", s.createInvoice)
	r.Get("/v1/payment/:id", s.paymentStatus)
	r.Get("/payment", s.page)
	r.Post("/payment", s.choose)
	r.Get("/statement", simkit.Statement(s.state, family.Family, family.StatementShape))
}

// apiError is the provider's error answer.
func apiError(c *fiber.Ctx, status int, code, msg string) error {
	return c.Status(status).JSON(fiber.Map{"status": false, "statusCode": status, "code": code, "message": msg})
}

func (s *Simulator) authorised(c *fiber.Ctx) bool {
	got := c.Get(s.cfg.APIKeyHeader)
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.APIKey)) == 1
}

func (s *Simulator) currencies(c *fiber.Ctx) error {
	if !s.authorised(c) {
		return apiError(c, fiber.StatusForbidden, "INVALID_API_KEY", "Invalid api key")
	}
	list := make([]string, 0, len(simCoins))
	for k := range simCoins {
		list = append(list, k)
	}
	slices.Sort(list)
	return c.JSON(fiber.Map{"currencies": list})
}

func (s *Simulator) minAmount(c *fiber.Ctx) error {
	if !s.authorised(c) {
		return apiError(c, fiber.StatusForbidden, "INVALID_API_KEY", "Invalid api key")
	}
	from, to, fiat := c.Query("currency_from"), c.Query("currency_to"), c.Query("fiat_equivalent")
	_, fromKnown := simCoins[from]
	_, toKnown := simCoins[to]
	if !fromKnown || (to != "" && !toKnown) {
		return apiError(c, fiber.StatusBadRequest, "INVALID_REQUEST_PARAMS", "currency_from or currency_to is not supported")
	}
	out := fiber.Map{"currency_from": from, "currency_to": to, "min_amount": json.Number(simCoins[from].min)}
	if fiat != "" {
		if _, ok := simFiat[fiat]; !ok {
			return apiError(c, fiber.StatusBadRequest, "INVALID_REQUEST_PARAMS", "fiat_equivalent is not supported")
		}
		out["fiat_equivalent"] = json.Number(decimalText(minFiat(from, fiat), 8))
	}
	return c.JSON(out)
}

// minFiat is a coin's minimum in a price currency.
func minFiat(coin, fiat string) *big.Rat {
	v := new(big.Rat).Mul(rat(simCoins[coin].min), rat(simCoins[coin].usd))
	return v.Mul(v, rat(simFiat[fiat]))
}

// rat reads one of the simulator's own decimal constants.
func rat(lit string) *big.Rat {
	r, ok := new(big.Rat).SetString(lit)
	if !ok {
		panic("cryptopsp simulator: bad constant " + lit)
	}
	return r
}

// decimalText writes r with at most prec decimals, rounded up, without
// trailing zeros: a JSON number literal.
func decimalText(r *big.Rat, prec int) string {
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(prec)), nil)
	x := new(big.Rat).Mul(r, new(big.Rat).SetInt(scale))
	q := new(big.Int).Quo(x.Num(), x.Denom())
	if !x.IsInt() {
		q.Add(q, big.NewInt(1))
	}
	s := new(big.Rat).SetFrac(q, scale).FloatString(prec)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// randomID is a ten-digit id, as the provider's are.
func randomID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("id: %w", err)
	}
	return strconv.FormatUint(1_000_000_000+binary.BigEndian.Uint64(b[:])%9_000_000_000, 10), nil
}

// absoluteURL is an http(s) URL with a host.
func absoluteURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
