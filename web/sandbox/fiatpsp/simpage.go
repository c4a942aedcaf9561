package fiatpsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/provider/statement"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	family "github.com/paygate/gateway/provider/fiatpsp"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/wire"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

// statusText is what the payer's page says of a settled order.
var statusText = map[string]string{
	family.StatusPaid: "Paid. The shop has been notified.", family.StatusError: "The payment failed.",
	family.StatusRefund: "Refunded.", family.StatusCancelled: "Cancelled.",
}

// handlePage shows the payer's page of an order.
func (s *Simulator) handlePage(c *fiber.Ctx) error {
	o, err := s.pageOrder(c)
	if err != nil {
		return err
	}
	return s.render(c, o, statusText[o.Status])
}

// handlePagePost settles the order as the tester chose, then sends the payer
// back to the shop's address for the outcome, or shows the outcome.
func (s *Simulator) handlePagePost(c *fiber.Ctx) error {
	o, err := s.pageOrder(c)
	if err != nil {
		return err
	}
	paid, ok := simkit.Choice(c)
	if !ok {
		return fiber.NewError(fiber.StatusBadRequest, simkit.ChoiceError)
	}
	o, err = s.settle(c.UserContext(), o, paid)
	done := statusText[o.Status]
	switch {
	case errors.Is(err, ErrNotAccepted):
		s.log.Warn("fiatpsp sim: notification not accepted yet, retrying", "order", o.ID, "err", err)
		done = "Paid. The shop has not accepted the notification yet; the provider keeps sending it."
	case err != nil:
		return fiber.NewError(fiber.StatusConflict, err.Error())
	}
	back := o.Failure
	if o.Status == family.StatusPaid {
		back = o.Success
	}
	if back != "" {
		return c.Redirect(back, fiber.StatusSeeOther)
	}
	return s.render(c, o, done)
}

func (s *Simulator) pageOrder(c *fiber.Ctx) (simOrder, error) {
	id, ok := family.PositiveID(c.Params("id"))
	if !ok {
		return simOrder{}, fiber.ErrNotFound
	}
	o, err := s.load(c.UserContext(), id)
	if errors.Is(err, provider.ErrNotFound) {
		return simOrder{}, fiber.ErrNotFound
	}
	return o, err
}

func (s *Simulator) render(c *fiber.Ctx, o simOrder, done string) error {
	name := ""
	for _, sys := range s.cfg.Systems {
		if sys.ID == o.System {
			name = sys.Name
		}
	}
	return simkit.SendPage(c, simkit.SimPage{
		Provider: family.Family, OrderID: o.PaymentID, Amount: o.Amount, Currency: o.Currency, Description: name,
		Action: s.pageURL(o), Done: done,
	})
}

// Settle pays or fails the order whose provider id is ref, as the payer's
// page would. A paid order is notified (again, when it was already paid);
// a failed one is not: the provider notifies payments only.
func (s *Simulator) Settle(ctx context.Context, ref string, paid bool) error {
	id, ok := family.PositiveID(ref)
	if !ok {
		return fmt.Errorf("fiatpsp sim: order %q: %w", ref, provider.ErrNotFound)
	}
	o, err := s.load(ctx, id)
	if err != nil {
		return err
	}
	_, err = s.settle(ctx, o, paid)
	return err
}

// ErrNotAccepted marks a notification the shop has not accepted yet; the
// notifier goes on sending it.
var ErrNotAccepted = errors.New("notification not accepted yet, retrying")

// settle records the outcome and notifies a payment.
func (s *Simulator) settle(ctx context.Context, o simOrder, paid bool) (simOrder, error) {
	switch {
	case paid && o.Status == family.StatusPaid:
		return o, s.notify(ctx, o)
	case !paid && o.Status == family.StatusError:
		return o, nil
	case o.Status != family.StatusNew:
		return o, fmt.Errorf("fiatpsp sim: order %d is already %s", o.ID, strings.TrimSuffix(statusText[o.Status], "."))
	}
	o.Status = family.StatusError
	if paid {
		o.Status = family.StatusPaid
	}
	if err := s.save(ctx, o); err != nil {
		return o, err
	}
	if !paid {
		return o, nil
	}
	if err := s.record(ctx, o); err != nil {
		return o, err
	}
	return o, s.notify(ctx, o)
}

// notify sends the paid order's notification form, signed with secret2
// over the amount exactly as the shop sent it, until the shop answers YES.
func (s *Simulator) notify(ctx context.Context, o simOrder) error {
	shop := strconv.FormatInt(s.cfg.ShopID, 10)
	form := url.Values{
		family.FieldMerchant: {shop}, family.FieldAmount: {o.Amount}, family.FieldIntID: {strconv.FormatInt(o.ID, 10)},
		family.FieldOrder: {o.PaymentID}, family.FieldEmail: {o.Email}, family.FieldCurID: {strconv.Itoa(o.System)},
		family.FieldSign: {family.SignNotification(shop, o.Amount, s.cfg.Secret2, o.PaymentID)},
	}
	body := form.Encode()
	newReq := wire.Request(http.MethodPost, o.NotifyURL, []byte(body), "Content-Type", "application/x-www-form-urlencoded")
	err := s.n.Send(ctx, newReq, func(status int, body []byte) bool {
		return status == http.StatusOK && string(bytes.TrimSpace(body)) == "YES"
	})
	if err != nil {
		return fmt.Errorf("fiatpsp sim: order %d: %w: %w", o.ID, ErrNotAccepted, err)
	}
	return nil
}

// record keeps a paid order for its day's statement, with the fee the
// shop's cost charges.
func (s *Simulator) record(ctx context.Context, o simOrder) error {
	amt, err := decimal.ParsePadded(o.Amount)
	if err != nil {
		return fmt.Errorf("order %d amount: %w", o.ID, err)
	}
	fee, err := simkit.Fee(ctx, s.cfg.Cost, amt)
	if err != nil {
		return fmt.Errorf("order %d: %w", o.ID, err)
	}
	return simkit.RecordSettled(ctx, s.state, family.Family, statement.Row{Ref: strconv.FormatInt(o.ID, 10), Order: o.PaymentID,
		Currency: o.Currency, Account: strconv.FormatInt(s.cfg.ShopID, 10), Amount: int64(amt), Fee: int64(fee), At: time.Now().UTC()})
}
