package cryptohost

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	family "github.com/paygate/gateway/provider/cryptohost"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/web/sandbox"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

// SimConfig is the simulator's side of the sandbox credentials.
type SimConfig struct {
	BaseURL       string // the simulator's own public base, for hosted URLs
	APIKey        string
	WebhookSecret string
	// WebhookURL is the endpoint subscribed at the provider: the gateway's
	// /api/gatewaynotification/cryptohost/webhook. The provider does not
	// take a notification URL per charge, so neither does the simulator.
	WebhookURL      string
	APIKeyHeader    string
	SignatureHeader string
	ChargeTTL       time.Duration // how long a charge can be paid
	KeepFor         time.Duration // how long the simulator remembers it
	// Cost is what the account charges on each payment, kept as the fee of
	// its statement line (the channel's configured cost in the sandbox).
	Cost simkit.Cost
}

// WithCost is c charging cost.
func (c SimConfig) WithCost(cost simkit.Cost) SimConfig { c.Cost = cost; return c }

// SandboxSimConfig is the simulator mounted at baseURL with the sandbox
// credentials. When baseURL ends in the conventional mount
// /sandbox/provider/cryptohost, the webhook subscription is the gateway's
// sandbox notification path on the same host (the gateway keeps sandbox
// notifications under /sandbox/gatewaynotification, apart from live ones);
// a sandbox channel's mount /sandbox/provider/ch/<id>/cryptohost
// subscribes that channel's path, .../cryptohost/ch/<id>/webhook, as an
// operator subscribes each account's dashboard; otherwise set WebhookURL.
func SandboxSimConfig(baseURL string) SimConfig {
	baseURL = strings.TrimRight(baseURL, "/")
	cfg := SimConfig{BaseURL: baseURL, APIKey: family.SandboxAPIKey, WebhookSecret: family.SandboxWebhookSecret,
		APIKeyHeader: family.DefaultAPIKeyHeader, SignatureHeader: family.DefaultSignatureHeader, ChargeTTL: time.Hour, KeepFor: 7 * 24 * time.Hour}
	rest, ok := strings.CutSuffix(baseURL, "/"+family.Family)
	if !ok {
		return cfg
	}
	notify := "/sandbox/gatewaynotification/" + family.Family + "/"
	if root, ok := strings.CutSuffix(rest, "/sandbox/provider"); ok {
		cfg.WebhookURL = root + notify + family.NotifyPath
	} else if i := strings.LastIndex(rest, "/sandbox/provider/ch/"); i >= 0 && !strings.Contains(rest[i+len("/sandbox/provider/ch/"):], "/") {
		cfg.WebhookURL = rest[:i] + notify + "ch/" + rest[i+len("/sandbox/provider/ch/"):] + "/" + family.NotifyPath
	}
	return cfg
}

// Simulator answers the provider's charge API, shows its hosted page and
// sends its webhooks, signed with the sandbox secret.
type Simulator struct {
	cfg    SimConfig
	state  provider.State
	n      *provider.Notifier
	log    *slog.Logger
	faults *sandbox.FaultSwitch // the tester's switch: restricted, hang, reset
}

// NewSimulator builds the simulator; its charges live in state.
func NewSimulator(cfg SimConfig, state provider.State, n *provider.Notifier, log *slog.Logger) *Simulator {
	log = simkit.Logger(log)
	return &Simulator{cfg: cfg, state: state, n: n, log: log, faults: sandbox.NewFaultSwitch(state, cfg.BaseURL, log)}
}

// Register mounts the API and the hosted page relative to r.
func (s *Simulator) Register(r fiber.Router) {
	r.Post("/charges", s.createCharge)
	r.Get("/charges/:code", s.getCharge)
	r.Get("/pay/:code", s.page)
	r.Post("/pay/:code", s.choose)
	r.Get("/statement", simkit.Statement(s.state, family.Family, family.StatementShape))
}

// apiError is the provider's error answer.
func apiError(c *fiber.Ctx, status int, kind, msg string) error {
	return c.Status(status).JSON(fiber.Map{"error": fiber.Map{"type": kind, "message": msg}})
}

// authorised checks the API key as the provider does.
func (s *Simulator) authorised(c *fiber.Ctx) bool {
	got := c.Get(s.cfg.APIKeyHeader)
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.APIKey)) == 1
}

func (s *Simulator) createCharge(c *fiber.Ctx) error {
	if !s.authorised(c) {
		return apiError(c, fiber.StatusUnauthorized, "authorization_error", "no such API key")
	}
	if done, err := s.faults.Intercept(c, func(c *fiber.Ctx) error {
		return apiError(c, fiber.StatusForbidden, "authorization_error", "This account has been restricted; contact support")
	}); done {
		return err
	}
	var req family.CreateCharge
	if len(c.Body()) > family.MaxNotifyBody || json.Unmarshal(c.Body(), &req) != nil {
		return apiError(c, fiber.StatusBadRequest, "invalid_request", "body is not a charge")
	}
	if err := checkChargeRequest(&req); err != nil {
		return apiError(c, fiber.StatusBadRequest, "invalid_request", err.Error())
	}
	ch, err := s.newCharge(&req)
	if err != nil {
		return err
	}
	if err := s.save(c.UserContext(), ch); err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"data": ch, "warnings": []string{}})
}

// checkChargeRequest refuses what the provider refuses.
func checkChargeRequest(r *family.CreateCharge) error {
	var errs []error
	if r.Name == "" || len(r.Name) > 100 {
		errs = append(errs, errors.New("name is required (at most 100 characters)"))
	}
	if r.PricingType != "fixed_price" {
		errs = append(errs, errors.New("pricing_type must be fixed_price"))
	}
	if a, err := decimal.ParseMinor(r.LocalPrice.Amount, decimal.Exact); err != nil || a <= 0 {
		errs = append(errs, errors.New("local_price.amount must be a positive amount"))
	}
	if !decimal.Currency(r.LocalPrice.Currency) {
		errs = append(errs, errors.New("local_price.currency must be a currency code"))
	}
	if r.Metadata.OrderID == "" || len(r.Metadata.OrderID) > 128 {
		errs = append(errs, errors.New("metadata.order_id is required"))
	}
	for _, u := range []string{r.RedirectURL, r.CancelURL} {
		if p, err := url.Parse(u); u != "" && (err != nil || p.Host == "") {
			errs = append(errs, fmt.Errorf("%q is not an absolute URL", u))
		}
	}
	return errors.Join(errs...)
}

// newCharge makes a NEW charge with a fresh code and id.
func (s *Simulator) newCharge(r *family.CreateCharge) (*family.Charge, error) {
	code, err := randomCode(8)
	if err != nil {
		return nil, err
	}
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		return nil, fmt.Errorf("charge id: %w", err)
	}
	now := time.Now().UTC()
	h := hex.EncodeToString(id)
	ch := &family.Charge{
		ID: h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], Code: code,
		Name: r.Name, Description: r.Description, HostedURL: s.cfg.BaseURL + "/pay/" + code,
		CreatedAt: now.Format(time.RFC3339), ExpiresAt: now.Add(s.cfg.ChargeTTL).Format(time.RFC3339),
		PricingType: r.PricingType, RedirectURL: r.RedirectURL, CancelURL: r.CancelURL,
		Payments: []family.Payment{}, Timeline: []family.TimelineEntry{{Status: "NEW", Time: now.Format(time.RFC3339)}},
	}
	ch.Pricing.Local = r.LocalPrice
	ch.Metadata.OrderID = r.Metadata.OrderID
	return ch, nil
}

// randomCode is an upper-case code without look-alike characters.
func randomCode(n int) (string, error) {
	const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("charge code: %w", err)
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b), nil
}

func (s *Simulator) getCharge(c *fiber.Ctx) error {
	if !s.authorised(c) {
		return apiError(c, fiber.StatusUnauthorized, "authorization_error", "no such API key")
	}
	ch, err := s.load(c.UserContext(), c.Params("code"))
	if errors.Is(err, provider.ErrNotFound) {
		return apiError(c, fiber.StatusNotFound, "not_found", "charge not found")
	}
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"data": ch, "warnings": []string{}})
}
