package bdcard

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	family "github.com/paygate/gateway/provider/bdcard"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/provider/wire"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

// SimConfig is a simulated store of either family.
type SimConfig struct {
	Family        string // FamilyCard or FamilyPSPA: names the page and the state keys
	BaseURL       string // the simulator's own public base, for the checkout page's address
	StoreID       string
	StorePassword string
	TTL           time.Duration // how long sessions are kept (72 h in the sandbox)
	// Cost is what the account charges on each payment, kept as the fee of
	// its statement line (the channel's configured cost in the sandbox).
	Cost simkit.Cost
}

// WithCost is c charging cost.
func (c SimConfig) WithCost(cost simkit.Cost) SimConfig { c.Cost = cost; return c }

// SandboxSimConfig is the bdcard simulator with the sandbox store that
// SandboxConfig signs in with.
func SandboxSimConfig(baseURL string) SimConfig {
	return SandboxSimConfigFamily(family.FamilyCard, baseURL)
}

// SandboxSimConfigFamily is SandboxSimConfig for either family.
func SandboxSimConfigFamily(name, baseURL string) SimConfig {
	id, pw := family.SandboxStore(name)
	return SimConfig{Family: name, BaseURL: strings.TrimRight(baseURL, "/"), StoreID: id, StorePassword: pw, TTL: 72 * time.Hour}
}

// Simulator speaks the provider's side of the protocol: sessions, the
// checkout page, IPNs signed with the store password, validation and
// transaction query, for the transactions it made itself.
type Simulator struct {
	cfg    SimConfig
	state  provider.State
	n      *provider.Notifier
	log    *slog.Logger
	faults *sandbox.FaultSwitch // the tester's switch: restricted, hang, reset
}

// NewSimulator builds a simulator keeping its sessions in state (keys
// "sim:<family>:") and sending IPNs through n.
func NewSimulator(cfg SimConfig, state provider.State, n *provider.Notifier, log *slog.Logger) *Simulator {
	log = simkit.Logger(log)
	return &Simulator{cfg: cfg, state: state, n: n, log: log.With("simulator", cfg.Family),
		faults: sandbox.NewFaultSwitch(state, cfg.BaseURL, log)}
}

// Register mounts the provider's API and the checkout page on r.
func (s *Simulator) Register(r fiber.Router) {
	r.Post(family.DefaultSessionPath, s.session)
	r.Get("/checkout/:key", s.page)
	r.Post("/checkout/:key", s.choose)
	r.Get(family.DefaultValidationPath, s.validation)
	r.Get(family.DefaultQueryPath, s.query)
	r.Get("/statement", simkit.Statement(s.state, s.cfg.Family, family.StatementShape))
}

// simSession is a session and, once settled, its transaction.
type simSession struct {
	Key, TranID                            string
	Amount, Currency                       string
	OrigCurrency, OrigAmount, Product      string
	SuccessURL, FailURL, CancelURL, IPNURL string
	Status                                 string // UNATTEMPTED until the payer pays or fails
	ValID, BankTranID, TranDate            string
	Validated                              bool
	// Fee is what the store was charged when paid (SimConfig.Cost): the
	// IPN's store_amount is the amount less it, and so is the statement's.
	Fee schema.Amount `json:",omitempty"`
}

// authorised compares store credentials in constant time.
func (s *Simulator) authorised(id, password string) bool {
	okID := subtle.ConstantTimeCompare([]byte(id), []byte(s.cfg.StoreID)) == 1
	okPW := subtle.ConstantTimeCompare([]byte(password), []byte(s.cfg.StorePassword)) == 1
	return okID && okPW
}

// session opens a checkout session, as the provider's session call does.
func (s *Simulator) session(c *fiber.Ctx) error {
	if !s.authorised(c.FormValue("store_id"), c.FormValue("store_passwd")) {
		return c.JSON(family.SessionAnswer{Status: "FAILED", FailedReason: storeInactive})
	}
	if done, err := s.faults.Intercept(c, func(c *fiber.Ctx) error {
		return c.JSON(family.SessionAnswer{Status: "FAILED", FailedReason: storeInactive})
	}); done {
		return err
	}
	sess, err := s.newSession(c)
	if err != nil {
		return c.JSON(family.SessionAnswer{Status: "FAILED", FailedReason: err.Error()})
	}
	if err := s.save(c.UserContext(), sess); err != nil {
		return fmt.Errorf("sim session: %w", err)
	}
	return c.JSON(family.SessionAnswer{Status: "SUCCESS", SessionKey: sess.Key, GatewayPageURL: s.cfg.BaseURL + "/checkout/" + sess.Key})
}

// storeInactive is the provider's one answer for a store it does not
// accept: wrong credentials, or a store it has deactivated (the sandbox's
// restricted fault).
const storeInactive = "Store Credential Error Or Store is De-active"

func (s *Simulator) newSession(c *fiber.Ctx) (simSession, error) {
	sess := simSession{
		Key: simkit.RandomHex(16), TranID: c.FormValue("tran_id"), Amount: c.FormValue("total_amount"),
		Currency: c.FormValue("currency"), Product: wire.Clip(c.FormValue("product_name"), 255),
		OrigCurrency: c.FormValue("currency_type"), OrigAmount: c.FormValue("currency_amount"),
		SuccessURL: c.FormValue("success_url"), FailURL: c.FormValue("fail_url"),
		CancelURL: c.FormValue("cancel_url"), IPNURL: c.FormValue("ipn_url"), Status: family.StatusUnattempted,
	}
	if err := wire.CheckID("tran_id", sess.TranID); err != nil {
		return sess, err
	}
	if _, err := decimal.PaddedMoney(sess.Amount, sess.Currency); err != nil {
		return sess, fmt.Errorf("total_amount/currency: %w", err)
	}
	if sess.OrigCurrency == "" && sess.OrigAmount == "" {
		sess.OrigCurrency, sess.OrigAmount = sess.Currency, sess.Amount
	}
	if _, err := decimal.PaddedMoney(sess.OrigAmount, sess.OrigCurrency); err != nil {
		return sess, fmt.Errorf("currency_amount/currency_type: %w", err)
	}
	for _, u := range []string{sess.SuccessURL, sess.FailURL, sess.CancelURL, sess.IPNURL} {
		if err := schema.CheckURL(u); err != nil {
			return sess, fmt.Errorf("success_url, fail_url, cancel_url and ipn_url: %w", err)
		}
	}
	return sess, nil
}

// page is the simulated checkout page.
func (s *Simulator) page(c *fiber.Ctx) error {
	sess, err := s.load(c.UserContext(), "session", c.Params("key"))
	if err != nil {
		return c.Status(http.StatusNotFound).SendString("no such session")
	}
	p := simkit.SimPage{
		Provider: s.cfg.Family, OrderID: sess.TranID, Amount: sess.Amount, Currency: sess.Currency, Description: sess.Product,
		Action: s.cfg.BaseURL + "/checkout/" + sess.Key,
	}
	if sess.OrigCurrency != sess.Currency {
		p.Description += fmt.Sprintf(" (%s %s)", sess.OrigAmount, sess.OrigCurrency)
	}
	if sess.Status != family.StatusUnattempted {
		p.Done = "This payment is settled: " + sess.Status
	}
	return simkit.SendPage(c, p)
}

// choose takes the tester's Pay or Fail, sends the IPN and sends the
// browser back to the merchant's success or fail page.
func (s *Simulator) choose(c *fiber.Ctx) error {
	paid, ok := simkit.Choice(c)
	if !ok {
		return simkit.RefuseChoice(c)
	}
	sess, err := s.settle(c.UserContext(), c.Params("key"), paid)
	if errors.Is(err, provider.ErrNotFound) {
		return c.Status(http.StatusNotFound).SendString("no such session")
	}
	if err != nil && sess.Key == "" {
		return c.Status(http.StatusConflict).SendString(err.Error())
	}
	if err != nil {
		s.log.Warn("simulated IPN not accepted yet; retrying in the background", "err", err)
	}
	back := sess.FailURL
	if sess.Status == family.StatusValid {
		back = sess.SuccessURL
	}
	return c.Redirect(back, http.StatusSeeOther)
}

func (s *Simulator) key(kind, id string) string {
	return "sim:" + s.cfg.Family + ":" + kind + ":" + id
}

// save stores the session under its key, and indexes it by our transaction
// id (the latest session wins) and, once settled, by its validation id.
func (s *Simulator) save(ctx context.Context, sess simSession) error {
	raw, err := json.Marshal(sess)
	if err != nil {
		return fmt.Errorf("encode session: %w", err)
	}
	puts := map[string][]byte{s.key("session", sess.Key): raw, s.key("tran", sess.TranID): []byte(sess.Key)}
	if sess.ValID != "" {
		puts[s.key("val", sess.ValID)] = []byte(sess.Key)
	}
	for k, v := range puts {
		if err := s.state.Put(ctx, k, v, s.cfg.TTL); err != nil {
			return fmt.Errorf("store session: %w", err)
		}
	}
	return nil
}

// load reads a session by its key, or through the tran or val index.
func (s *Simulator) load(ctx context.Context, kind, id string) (simSession, error) {
	if id == "" || len(id) > 128 {
		return simSession{}, provider.ErrNotFound
	}
	key := id
	if kind != "session" {
		k, err := s.state.Get(ctx, s.key(kind, id))
		if err != nil {
			return simSession{}, fmt.Errorf("session by %s: %w", kind, err)
		}
		key = string(k)
	}
	sess, err := simkit.Load[simSession](ctx, s.state, s.key("session", key))
	if err != nil {
		return simSession{}, fmt.Errorf("session: %w", err)
	}
	return sess, nil
}
