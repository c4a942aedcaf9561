package bdpspb

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	family "github.com/paygate/gateway/provider/bdpspb"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/provider/wire"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

// SimConfig is the simulated merchant account.
type SimConfig struct {
	BaseURL      string // the simulator's own public base, for the payment page's address
	StoreID      string
	SignatureKey string
	TTL          time.Duration // how long transactions are kept (72 h in the sandbox)
	// Cost is what the account charges on each payment, kept as the fee of
	// its statement line (the channel's configured cost in the sandbox).
	Cost simkit.Cost
}

// WithCost is c charging cost.
func (c SimConfig) WithCost(cost simkit.Cost) SimConfig { c.Cost = cost; return c }

// SandboxSimConfig is the simulator with the account SandboxConfig uses.
func SandboxSimConfig(baseURL string) SimConfig {
	return SimConfig{BaseURL: strings.TrimRight(baseURL, "/"), StoreID: family.SandboxStoreID, SignatureKey: family.SandboxSignatureKey, TTL: 72 * time.Hour}
}

// Simulator speaks the provider's side: payment creation, the payment page,
// the browser's return to the merchant, and the transaction search.
type Simulator struct {
	cfg    SimConfig
	state  provider.State
	n      *provider.Notifier
	log    *slog.Logger
	faults *sandbox.FaultSwitch // the tester's switch: restricted, hang, reset
}

// NewSimulator builds a simulator keeping its transactions in state (keys
// "sim:bdpsp_b:"); n posts the return form for Settle, as a browser would.
func NewSimulator(cfg SimConfig, state provider.State, n *provider.Notifier, log *slog.Logger) *Simulator {
	log = simkit.Logger(log)
	return &Simulator{cfg: cfg, state: state, n: n, log: log.With("simulator", family.Family),
		faults: sandbox.NewFaultSwitch(state, cfg.BaseURL, log)}
}

// Register mounts the provider's API and the payment page on r.
func (s *Simulator) Register(r fiber.Router) {
	r.Get("/statement", simkit.Statement(s.state, family.Family, family.StatementShape))
	r.Post(family.DefaultCreatePath, s.create)
	r.Get("/paynow/:track", s.page)
	r.Post("/paynow/:track", s.choose)
	r.Get(family.DefaultSearchPath, s.search)
}

// simTxn is one payment at the simulated provider.
type simTxn struct {
	Track, TranID, Amount, Currency, Desc string
	SuccessURL, FailURL, CancelURL        string
	Status                                string // Pending until the payer pays, fails or cancels
	PayTime                               string
	// Fee is what the store was charged when paid (SimConfig.Cost): the
	// search's store_amount is the amount less it, and so is the
	// statement's.
	Fee schema.Amount `json:",omitempty"`
}

func (s *Simulator) authorised(id, key string) bool {
	okID := subtle.ConstantTimeCompare([]byte(id), []byte(s.cfg.StoreID)) == 1
	okKey := subtle.ConstantTimeCompare([]byte(key), []byte(s.cfg.SignatureKey)) == 1
	return okID && okKey
}

// create answers the create call: the payment page's address and its id.
func (s *Simulator) create(c *fiber.Ctx) error {
	var req family.CreateRequest
	if err := json.Unmarshal(c.Body(), &req); err != nil {
		return c.Status(http.StatusBadRequest).JSON(family.CreateAnswer{Result: "false", Message: "body is not JSON"})
	}
	if !s.authorised(req.StoreID, req.SignatureKey) {
		return c.Status(http.StatusUnauthorized).JSON(family.CreateAnswer{Result: "false", Message: "Invalid Store ID or Signature Key"})
	}
	if done, err := s.faults.Intercept(c, func(c *fiber.Ctx) error {
		return c.Status(http.StatusForbidden).JSON(family.CreateAnswer{Result: "false", Message: "Merchant account is suspended"})
	}); done {
		return err
	}
	txn, err := newTxn(req)
	if err != nil {
		return c.Status(http.StatusBadRequest).JSON(family.CreateAnswer{Result: "false", Message: err.Error()})
	}
	if err := s.save(c.UserContext(), txn); err != nil {
		return fmt.Errorf("sim create: %w", err)
	}
	return c.JSON(family.CreateAnswer{Result: "true", PaymentURL: s.cfg.BaseURL + "/paynow/" + txn.Track, Track: txn.Track})
}

func newTxn(req family.CreateRequest) (simTxn, error) {
	txn := simTxn{
		Track: simkit.RandomHex(12), TranID: req.TranID, Amount: req.Amount, Currency: req.Currency, Desc: wire.Clip(req.Desc, 255),
		SuccessURL: req.SuccessURL, FailURL: req.FailURL, CancelURL: req.CancelURL, Status: family.StatusPending,
	}
	if err := wire.CheckID("tran_id", txn.TranID); err != nil {
		return txn, err
	}
	if _, err := decimal.PaddedMoney(txn.Amount, txn.Currency); err != nil || txn.Currency != "BDT" {
		return txn, fmt.Errorf("amount and currency (BDT): %v", err)
	}
	for _, u := range []string{txn.SuccessURL, txn.FailURL, txn.CancelURL} {
		if err := schema.CheckURL(u); err != nil {
			return txn, fmt.Errorf("success_url, fail_url and cancel_url: %w", err)
		}
	}
	return txn, nil
}

// page is the simulated payment page.
func (s *Simulator) page(c *fiber.Ctx) error {
	txn, err := s.load(c.UserContext(), "txn", c.Params("track"))
	if err != nil {
		return c.Status(http.StatusNotFound).SendString("no such payment")
	}
	p := simkit.SimPage{
		Provider: family.Family, OrderID: txn.TranID, Amount: txn.Amount, Currency: txn.Currency, Description: txn.Desc,
		Action: s.cfg.BaseURL + "/paynow/" + txn.Track,
	}
	if txn.Status != family.StatusPending {
		p.Done = "This payment is settled: " + txn.Status
	}
	return simkit.SendPage(c, p)
}

func (s *Simulator) key(kind, id string) string {
	return "sim:" + family.Family + ":" + kind + ":" + id
}

// save stores the transaction under its id and indexes it by our
// transaction id (the latest payment wins).
func (s *Simulator) save(ctx context.Context, txn simTxn) error {
	raw, err := json.Marshal(txn)
	if err != nil {
		return fmt.Errorf("encode transaction: %w", err)
	}
	if err := s.state.Put(ctx, s.key("txn", txn.Track), raw, s.cfg.TTL); err != nil {
		return fmt.Errorf("store transaction: %w", err)
	}
	if err := s.state.Put(ctx, s.key("mer", txn.TranID), []byte(txn.Track), s.cfg.TTL); err != nil {
		return fmt.Errorf("store transaction index: %w", err)
	}
	return nil
}

// load reads a transaction by its id ("txn") or by our transaction id ("mer").
func (s *Simulator) load(ctx context.Context, kind, id string) (simTxn, error) {
	if id == "" || len(id) > 128 {
		return simTxn{}, provider.ErrNotFound
	}
	track := id
	if kind == "mer" {
		t, err := s.state.Get(ctx, s.key("mer", id))
		if err != nil {
			return simTxn{}, fmt.Errorf("transaction by merchant id: %w", err)
		}
		track = string(t)
	}
	txn, err := simkit.Load[simTxn](ctx, s.state, s.key("txn", track))
	if err != nil {
		return simTxn{}, fmt.Errorf("transaction: %w", err)
	}
	return txn, nil
}
