package cryptopsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/provider/statement"
	"net/http"
	"strings"
	"time"

	family "github.com/paygate/gateway/provider/cryptopsp"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/wire"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

// field is one member of a JSON object written in a chosen order: a string,
// a json.Number literal, or a nested []field.
type field struct {
	key   string
	value any
}

// writeFields writes the object in its field order; spaced uses ", " and
// ": " as the provider's IPN bodies do, so the receiver must re-serialise.
func writeFields(fs []field, spaced bool) []byte {
	sep, colon := ",", ":"
	if spaced {
		sep, colon = ", ", ": "
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteString(sep)
		}
		k, _ := json.Marshal(f.key)
		b.Write(k)
		b.WriteString(colon)
		switch v := f.value.(type) {
		case []field:
			b.Write(writeFields(v, spaced))
		case json.Number:
			b.WriteString(string(v))
		default:
			s, _ := json.Marshal(v)
			b.Write(s)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// paymentFields is the payment as the IPN and the status call carry it.
func paymentFields(inv *simInvoice) []field {
	return []field{
		{"payment_id", json.Number(inv.PaymentID)}, {"invoice_id", json.Number(inv.ID)},
		{"payment_status", inv.Status}, {"pay_address", inv.PayAddress},
		{"price_amount", json.Number(inv.PriceAmount)}, {"price_currency", inv.PriceCurrency},
		{"pay_amount", json.Number(inv.PayAmount)}, {"actually_paid", json.Number(inv.ActuallyPaid)},
		{"pay_currency", inv.PayCurrency}, {"order_id", inv.OrderID}, {"order_description", inv.Description},
		{"purchase_id", inv.ID}, {"outcome_amount", json.Number(inv.PayAmount)}, {"outcome_currency", inv.PayCurrency},
		{"fee", []field{{"currency", inv.PayCurrency}, {"depositFee", json.Number("0")},
			{"withdrawalFee", json.Number("0")}, {"serviceFee", json.Number("0")}}},
	}
}

// page is the invoice page, with Pay and Fail for the tester.
func (s *Simulator) page(c *fiber.Ctx) error {
	inv, err := s.load(c.UserContext(), c.Query("iid"))
	if errors.Is(err, provider.ErrNotFound) {
		return c.Status(fiber.StatusNotFound).SendString("no such invoice")
	}
	if err != nil {
		return err
	}
	return s.render(c, inv)
}

func (s *Simulator) render(c *fiber.Ctx, inv *simInvoice) error {
	done := map[string]string{"finished": "Paid: the IPN was sent.", "failed": "Failed: the IPN was sent."}
	desc := "Pay " + inv.PayAmount + " " + schema.CryptoName(inv.PayCurrency)
	if inv.Description != "" {
		desc += " — " + inv.Description
	}
	return simkit.SendPage(c, simkit.SimPage{
		Provider: family.Family, OrderID: inv.OrderID, Amount: inv.PriceAmount, Currency: strings.ToUpper(inv.PriceCurrency),
		Description: desc, Action: s.invoiceURL(inv.ID), Done: done[inv.Status],
	})
}

// choose is the tester's Pay or Fail; the payer then goes back to the
// shop's success or cancel URL.
func (s *Simulator) choose(c *fiber.Ctx) error {
	id := c.Query("iid")
	paid, ok := simkit.Choice(c)
	if !ok {
		return simkit.RefuseChoice(c)
	}
	err := s.Settle(c.UserContext(), id, paid)
	if errors.Is(err, provider.ErrNotFound) {
		return c.Status(fiber.StatusNotFound).SendString("no such invoice")
	}
	if err != nil {
		s.log.Warn("simulated invoice: IPN not yet accepted", "provider", family.Family, "invoice", id, "err", err)
	}
	inv, lerr := s.load(c.UserContext(), id)
	if lerr != nil {
		return lerr
	}
	back := inv.CancelURL
	if paid {
		back = inv.SuccessURL
	}
	if back != "" {
		return c.Redirect(back, fiber.StatusSeeOther)
	}
	return s.render(c, inv)
}

// Settle pays or fails the invoice whose id is ref, without a browser, and
// sends the IPNs the provider would: confirming then finished, or failed.
// Settling again the same way sends the final IPN again; the other way is
// refused.
func (s *Simulator) Settle(ctx context.Context, ref string, paid bool) error {
	inv, err := s.load(ctx, ref)
	if err != nil {
		return err
	}
	switch {
	case inv.Status == "finished" && paid, inv.Status == "failed" && !paid:
		return s.sendIPN(ctx, inv)
	case inv.Status != "waiting":
		return fmt.Errorf("invoice %s is already %s: %w", ref, inv.Status, provider.ErrRefused)
	}
	inv.UpdatedAt = time.Now().UTC().Format(time.RFC3339)
	if !paid {
		inv.Status = "failed"
		if err := s.save(ctx, inv); err != nil {
			return err
		}
		return s.sendIPN(ctx, inv)
	}
	confirming := *inv
	confirming.Status, confirming.ActuallyPaid = "confirming", inv.PayAmount
	inv.Status, inv.ActuallyPaid = "finished", inv.PayAmount
	if err := s.save(ctx, inv); err != nil {
		return err
	}
	if err := s.record(ctx, inv); err != nil {
		return err
	}
	return errors.Join(s.sendIPN(ctx, &confirming), s.sendIPN(ctx, inv))
}

// sendIPN posts the payment to the invoice's IPN URL, signed over the
// canonical form of the exact body sent, until it is answered 200.
func (s *Simulator) sendIPN(ctx context.Context, inv *simInvoice) error {
	body := writeFields(paymentFields(inv), true)
	form, err := family.Canonical(body)
	if err != nil {
		return fmt.Errorf("canonical IPN: %w", err)
	}
	sig := family.Sign(s.cfg.IPNSecret, form)
	return s.n.Send(ctx, wire.Request(http.MethodPost, inv.IPNURL, body, "Content-Type", "application/json", s.cfg.SignatureHeader, sig),
		func(status int, _ []byte) bool { return status == http.StatusOK })
}

// record keeps a finished invoice for its day's statement under its
// payment id (the provider's reference of the payment), in the price
// currency it was asked in, with the fee the account's cost charges.
func (s *Simulator) record(ctx context.Context, inv *simInvoice) error {
	amt, err := decimal.ParseMinor(inv.PriceAmount, decimal.Exact)
	if err != nil {
		return fmt.Errorf("invoice %s amount: %w", inv.ID, err)
	}
	fee, err := simkit.Fee(ctx, s.cfg.Cost, amt)
	if err != nil {
		return fmt.Errorf("invoice %s: %w", inv.ID, err)
	}
	return simkit.RecordSettled(ctx, s.state, family.Family, statement.Row{Ref: inv.PaymentID, Order: inv.OrderID,
		Currency: strings.ToUpper(inv.PriceCurrency), Account: simkit.SandboxAccount, Amount: int64(amt), Fee: int64(fee), At: time.Now().UTC()})
}
