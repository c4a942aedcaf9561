package fiatpsp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strconv"
	"strings"
	"time"

	family "github.com/paygate/gateway/provider/fiatpsp"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/web/sandbox"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

// SimSystem is a payment system the simulator offers.
type SimSystem struct {
	ID       int
	Name     string
	Currency string
	Enabled  bool
}

// SandboxSystems are the simulator's payment systems: several per currency
// of the method, and one disabled to show that only enabled ones are offered.
var SandboxSystems = []SimSystem{
	{36, "Bank card RUB", "RUB", true}, {42, "Fast payments RUB", "RUB", true},
	{7, "Bank card USD", "USD", true}, {9, "Bank card EUR", "EUR", true},
	{12, "Bank card UAH", "UAH", true}, {15, "Bank card KZT", "KZT", true},
	{45, "Wallet KZT", "KZT", true}, {99, "Wallet USD (disabled)", "USD", false},
}

// SimConfig is the simulator's configuration.
type SimConfig struct {
	BaseURL string // its own public base, for the payer's page addresses
	ShopID  int64
	APIKey  string // checks our calls' signatures
	Secret2 string // signs its notifications
	// NotifyURL is the shop's notification address, used when a create call
	// carries none (the provider keeps it in the shop's settings).
	NotifyURL string
	Systems   []SimSystem // SandboxSystems in the sandbox
	// Cost is what the account charges on each payment, kept as the fee of
	// its statement line (the channel's configured cost in the sandbox).
	Cost simkit.Cost
}

// WithCost is c charging cost.
func (c SimConfig) WithCost(cost simkit.Cost) SimConfig { c.Cost = cost; return c }

// SandboxSimConfig is the simulator with the sandbox credentials of
// SandboxConfig.
func SandboxSimConfig(baseURL string) SimConfig {
	return SimConfig{BaseURL: strings.TrimRight(baseURL, "/"), ShopID: family.SandboxShopID, APIKey: family.SandboxAPIKey, Secret2: family.SandboxSecret2,
		Systems: SandboxSystems}
}

// Simulator is the provider in the sandbox: it answers the systems list,
// the create and status calls, shows the payer's page and notifies paid
// orders as the provider does.
type Simulator struct {
	cfg    SimConfig
	state  provider.State
	n      *provider.Notifier
	log    *slog.Logger
	faults *sandbox.FaultSwitch // the tester's switch: restricted, hang, reset
}

// NewSimulator builds the simulator; its orders live in state.
func NewSimulator(cfg SimConfig, state provider.State, n *provider.Notifier, log *slog.Logger) *Simulator {
	log = simkit.Logger(log)
	return &Simulator{cfg: cfg, state: state, n: n, log: log, faults: sandbox.NewFaultSwitch(state, cfg.BaseURL, log)}
}

// Register mounts the provider's API and the payer's page on r.
func (s *Simulator) Register(r fiber.Router) {
	r.Get("/currencies", s.handleSystems)
	r.Post("/orders/create", s.handleCreate)
	r.Get("/orders", s.handleStatus)
	r.Get("/pay/:id", s.handlePage)
	r.Get("/statement", simkit.Statement(s.state, family.Family, family.StatementShape))
	r.Post("/pay/:id", s.handlePagePost)
}

// simOrder is an order at the simulated provider.
type simOrder struct {
	ID        int64     `json:"id"`
	PaymentID string    `json:"paymentId"`
	System    int       `json:"system"`
	Amount    string    `json:"amount"` // exactly as received; the notification signs it so
	Currency  string    `json:"currency"`
	Email     string    `json:"email"`
	NotifyURL string    `json:"notifyUrl"`
	Success   string    `json:"successUrl,omitempty"`
	Failure   string    `json:"failureUrl,omitempty"`
	Status    string    `json:"status"`
	Created   time.Time `json:"created"`
}

const simTTL = 7 * 24 * time.Hour

func orderKey(id int64) string           { return "sim:fiatpsp:order:" + strconv.FormatInt(id, 10) }
func paymentKey(paymentID string) string { return "sim:fiatpsp:payment:" + paymentID }

func (s *Simulator) save(ctx context.Context, o simOrder) error {
	if err := simkit.Save(ctx, s.state, orderKey(o.ID), o, simTTL); err != nil {
		return fmt.Errorf("fiatpsp sim: save order: %w", err)
	}
	return nil
}

func (s *Simulator) load(ctx context.Context, id int64) (simOrder, error) {
	o, err := simkit.Load[simOrder](ctx, s.state, orderKey(id))
	if err != nil {
		return simOrder{}, fmt.Errorf("fiatpsp sim: order %d: %w", id, err)
	}
	return o, nil
}

// loadByPayment finds an order by the shop's payment id.
func (s *Simulator) loadByPayment(ctx context.Context, paymentID string) (simOrder, error) {
	b, err := s.state.Get(ctx, paymentKey(paymentID))
	if err != nil {
		return simOrder{}, fmt.Errorf("fiatpsp sim: payment %q: %w", paymentID, err)
	}
	id, ok := family.PositiveID(string(b))
	if !ok {
		return simOrder{}, fmt.Errorf("fiatpsp sim: payment %q: %w", paymentID, provider.ErrNotFound)
	}
	return s.load(ctx, id)
}

// system finds an enabled system.
func (s *Simulator) system(id string) (SimSystem, bool) {
	n, ok := family.PositiveID(id)
	for _, sys := range s.cfg.Systems {
		if ok && int64(sys.ID) == n && sys.Enabled {
			return sys, true
		}
	}
	return SimSystem{}, false
}

// authorised checks a call as the provider does: our shop, a nonce, and
// the signature over every value.
func (s *Simulator) authorised(values map[string]string) error {
	if values["shopId"] != strconv.FormatInt(s.cfg.ShopID, 10) {
		return errors.New("unknown shop")
	}
	if _, ok := family.PositiveID(values["nonce"]); !ok {
		return errors.New("nonce required")
	}
	if !family.RequestSigned(values, s.cfg.APIKey) {
		return errors.New("wrong signature")
	}
	return nil
}

// refuse answers an error envelope.
func refuse(c *fiber.Ctx, status int, msg string) error {
	return c.Status(status).JSON(family.Envelope{Type: "error", Message: msg})
}

// queryValues reads a GET call's parameters, each once.
func queryValues(c *fiber.Ctx) (map[string]string, bool) {
	values, ok := map[string]string{}, true
	c.Request().URI().QueryArgs().VisitAll(func(k, v []byte) {
		if _, dup := values[string(k)]; dup {
			ok = false
		}
		values[string(k)] = string(v)
	})
	return values, ok
}

// bodyValues reads a JSON call's flat members, numbers as their literal.
func bodyValues(body []byte) (map[string]string, bool) {
	if len(body) > 16<<10 {
		return nil, false
	}
	var raw map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&raw) != nil {
		return nil, false
	}
	values := make(map[string]string, len(raw))
	for k, v := range raw {
		switch v := v.(type) {
		case string:
			values[k] = v
		case json.Number:
			values[k] = v.String()
		default:
			return nil, false
		}
	}
	return values, true
}

// newOrderID is a fresh provider order id.
func newOrderID() (int64, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(900_000_000))
	if err != nil {
		return 0, fmt.Errorf("fiatpsp sim: order id: %w", err)
	}
	return 100_000_000 + n.Int64(), nil
}

// orderHash is the provider's opaque hash of an order.
func orderHash(o simOrder) string {
	sum := sha256.Sum256([]byte(strconv.FormatInt(o.ID, 10) + ":" + o.PaymentID))
	return hex.EncodeToString(sum[:16])
}

func (s *Simulator) pageURL(o simOrder) string {
	return s.cfg.BaseURL + "/pay/" + strconv.FormatInt(o.ID, 10)
}
