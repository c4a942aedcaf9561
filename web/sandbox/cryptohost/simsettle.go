package cryptohost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	family "github.com/paygate/gateway/provider/cryptohost"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/provider/statement"
	"github.com/paygate/gateway/provider/wire"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

// stateKey is where the simulator keeps a charge.
func stateKey(code string) string { return "sim:" + family.Family + ":charge:" + code }

func (s *Simulator) save(ctx context.Context, ch *family.Charge) error {
	if err := simkit.Save(ctx, s.state, stateKey(ch.Code), ch, s.cfg.KeepFor); err != nil {
		return fmt.Errorf("keep charge: %w", err)
	}
	return nil
}

func (s *Simulator) load(ctx context.Context, code string) (*family.Charge, error) {
	if !wire.IsRef(code) {
		return nil, provider.ErrNotFound
	}
	ch, err := simkit.Load[family.Charge](ctx, s.state, stateKey(code))
	if err != nil {
		return nil, fmt.Errorf("charge %s: %w", code, err)
	}
	return &ch, nil
}

// page is the hosted charge page, with Pay and Fail for the tester.
func (s *Simulator) page(c *fiber.Ctx) error {
	ch, err := s.load(c.UserContext(), c.Params("code"))
	if errors.Is(err, provider.ErrNotFound) {
		return c.Status(fiber.StatusNotFound).SendString("no such charge")
	}
	if err != nil {
		return err
	}
	return s.render(c, ch)
}

func (s *Simulator) render(c *fiber.Ctx, ch *family.Charge) error {
	done := map[string]string{"COMPLETED": "Paid: the webhook was sent.", "FAILED": "Failed: the webhook was sent.", "EXPIRED": "Expired."}
	st, _ := ch.LastStatus()
	return simkit.SendPage(c, simkit.SimPage{
		Provider: family.Family, OrderID: ch.Metadata.OrderID, Amount: ch.Pricing.Local.Amount, Currency: ch.Pricing.Local.Currency,
		Description: ch.Description, Action: s.cfg.BaseURL + "/pay/" + ch.Code, Done: done[st],
	})
}

// choose is the tester's Pay or Fail; the payer then goes back to the
// shop as the hosted page would send them.
func (s *Simulator) choose(c *fiber.Ctx) error {
	code := c.Params("code")
	paid, ok := simkit.Choice(c)
	if !ok {
		return simkit.RefuseChoice(c)
	}
	err := s.Settle(c.UserContext(), code, paid)
	if errors.Is(err, provider.ErrNotFound) {
		return c.Status(fiber.StatusNotFound).SendString("no such charge")
	}
	if err != nil {
		s.log.Warn("simulated charge: webhook not yet accepted", "provider", family.Family, "charge", code, "err", err)
	}
	ch, lerr := s.load(c.UserContext(), code)
	if lerr != nil {
		return lerr
	}
	back := ch.CancelURL
	if paid {
		back = ch.RedirectURL
	}
	if back != "" {
		return c.Redirect(back, fiber.StatusSeeOther)
	}
	return s.render(c, ch)
}

// Settle pays or fails the charge whose code is ref, without a browser,
// and sends the webhooks the provider would: pending then confirmed, or
// failed. Settling again the same way sends the final webhook again; the
// other way is refused.
func (s *Simulator) Settle(ctx context.Context, ref string, paid bool) error {
	ch, err := s.load(ctx, ref)
	if err != nil {
		return err
	}
	now := time.Now().UTC().Format(time.RFC3339)
	switch st, _ := ch.LastStatus(); {
	case st == "COMPLETED" && paid:
		return s.send(ctx, "charge:confirmed", ch)
	case st == "FAILED" && !paid:
		return s.send(ctx, "charge:failed", ch)
	case st != "NEW":
		return fmt.Errorf("charge %s is already %s: %w", ref, st, provider.ErrRefused)
	}
	if !paid {
		ch.Timeline = append(ch.Timeline, family.TimelineEntry{Status: "FAILED", Time: now})
		if err := s.save(ctx, ch); err != nil {
			return err
		}
		return s.send(ctx, "charge:failed", ch)
	}
	p := family.Payment{Status: "PENDING"}
	p.Value.Local = ch.Pricing.Local
	p.Value.Crypto = family.Price{Amount: ch.Pricing.Local.Amount, Currency: "USDC"}
	ch.Payments = append(ch.Payments, p)
	ch.Timeline = append(ch.Timeline, family.TimelineEntry{Status: "PENDING", Time: now})
	atPending := *ch
	atPending.Payments, atPending.Timeline = slices.Clone(ch.Payments), slices.Clone(ch.Timeline)
	ch.Payments[len(ch.Payments)-1].Status = "CONFIRMED"
	ch.Timeline = append(ch.Timeline, family.TimelineEntry{Status: "COMPLETED", Time: now})
	if err := s.save(ctx, ch); err != nil {
		return err
	}
	if err := s.record(ctx, ch); err != nil {
		return err
	}
	return errors.Join(s.send(ctx, "charge:pending", &atPending), s.send(ctx, "charge:confirmed", ch))
}

// send delivers one event on the charge to the webhook subscription, signed
// over the exact bytes sent, until it is answered 2xx.
func (s *Simulator) send(ctx context.Context, kind string, ch *family.Charge) error {
	if s.cfg.WebhookURL == "" {
		return errors.New("cryptohost simulator: no webhook URL subscribed")
	}
	var w family.Webhook
	id, err := randomCode(12)
	if err != nil {
		return err
	}
	now := time.Now().UTC().Format(time.RFC3339)
	w.ID, w.ScheduledFor, w.Attempt = "whk_"+id, now, 1
	w.Event.ID, w.Event.Resource, w.Event.Type = "evt_"+id, "event", kind
	w.Event.APIVersion, w.Event.CreatedAt, w.Event.Data = family.DefaultAPIVersion, now, *ch
	body, err := json.Marshal(w)
	if err != nil {
		return fmt.Errorf("encode webhook: %w", err)
	}
	sig := family.Sign(s.cfg.WebhookSecret, body)
	return s.n.Send(ctx, wire.Request(http.MethodPost, s.cfg.WebhookURL, body, "Content-Type", "application/json", s.cfg.SignatureHeader, sig),
		func(status int, _ []byte) bool { return status >= 200 && status < 300 })
}

// record keeps a completed charge for its day's statement, with the fee
// the account's cost charges; the account is the sandbox's one.
func (s *Simulator) record(ctx context.Context, ch *family.Charge) error {
	amt, err := decimal.ParsePadded(ch.Pricing.Local.Amount)
	if err != nil {
		return fmt.Errorf("charge %s amount: %w", ch.Code, err)
	}
	fee, err := simkit.Fee(ctx, s.cfg.Cost, amt)
	if err != nil {
		return fmt.Errorf("charge %s: %w", ch.Code, err)
	}
	return simkit.RecordSettled(ctx, s.state, family.Family, statement.Row{Ref: ch.Code, Order: ch.Metadata.OrderID,
		Currency: ch.Pricing.Local.Currency, Account: simkit.SandboxAccount, Amount: int64(amt), Fee: int64(fee), At: time.Now().UTC()})
}
