package cryptopsp

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	family "github.com/paygate/gateway/provider/cryptopsp"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/provider/wire"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

// simInvoice is an invoice and its one payment, as the simulator keeps it.
type simInvoice struct {
	ID            string `json:"id"`
	PaymentID     string `json:"payment_id"`
	OrderID       string `json:"order_id"`
	Description   string `json:"order_description"`
	PriceAmount   string `json:"price_amount"` // a JSON number literal
	PriceCurrency string `json:"price_currency"`
	PayCurrency   string `json:"pay_currency"`
	PayAmount     string `json:"pay_amount"`
	ActuallyPaid  string `json:"actually_paid"`
	PayAddress    string `json:"pay_address"`
	Status        string `json:"payment_status"`
	IPNURL        string `json:"ipn_callback_url"`
	SuccessURL    string `json:"success_url"`
	CancelURL     string `json:"cancel_url"`
	CreatedAt     string `json:"created_at"`
	UpdatedAt     string `json:"updated_at"`
}

func invoiceKey(id string) string { return "sim:" + family.Family + ":invoice:" + id }
func paymentKey(id string) string { return "sim:" + family.Family + ":payment:" + id }

func (s *Simulator) createInvoice(c *fiber.Ctx) error {
	if !s.authorised(c) {
		return apiError(c, fiber.StatusForbidden, "INVALID_API_KEY", "Invalid api key")
	}
	if done, err := s.faults.Intercept(c, func(c *fiber.Ctx) error {
		return apiError(c, fiber.StatusForbidden, "FORBIDDEN", "Account is blocked")
	}); done {
		return err
	}
	if len(c.Body()) > family.MaxNotifyBody {
		return apiError(c, fiber.StatusBadRequest, "INVALID_REQUEST_PARAMS", "body too large")
	}
	o, err := family.DecodeObject(c.Body())
	if err != nil {
		return apiError(c, fiber.StatusBadRequest, "INVALID_REQUEST_PARAMS", "body is not a JSON object")
	}
	inv, price, msg := readInvoiceRequest(o)
	if msg != "" {
		return apiError(c, fiber.StatusBadRequest, "INVALID_REQUEST_PARAMS", msg)
	}
	if price.Cmp(minFiat(inv.PayCurrency, inv.PriceCurrency)) < 0 {
		return apiError(c, fiber.StatusBadRequest, "AMOUNT_MINIMAL_ERROR", "amount is less than minimal")
	}
	if err := s.openInvoice(c.UserContext(), inv, price); err != nil {
		return err
	}
	return c.JSON(fiber.Map{
		"id": inv.ID, "token_id": inv.PaymentID, "order_id": inv.OrderID, "order_description": inv.Description,
		"price_amount": inv.PriceAmount, "price_currency": inv.PriceCurrency, "pay_currency": inv.PayCurrency,
		"ipn_callback_url": inv.IPNURL, "invoice_url": s.invoiceURL(inv.ID), "success_url": inv.SuccessURL,
		"cancel_url": inv.CancelURL, "created_at": inv.CreatedAt, "updated_at": inv.UpdatedAt,
	})
}

// readInvoiceRequest checks what the provider checks; msg says why not.
func readInvoiceRequest(o family.Object) (inv *simInvoice, price *big.Rat, msg string) {
	inv = &simInvoice{}
	lit, _ := family.Scalar(o["price_amount"])
	price, err := decimal.Parse(lit)
	if err != nil || price.Sign() <= 0 {
		return nil, nil, "price_amount must be a positive number"
	}
	inv.PriceAmount = decimalText(price, 8)
	inv.PriceCurrency, _ = o["price_currency"].(string)
	inv.PayCurrency, _ = o["pay_currency"].(string)
	inv.PriceCurrency, inv.PayCurrency = strings.ToLower(inv.PriceCurrency), strings.ToLower(inv.PayCurrency)
	inv.OrderID, _ = o["order_id"].(string)
	inv.Description, _ = o["order_description"].(string)
	inv.IPNURL, _ = o["ipn_callback_url"].(string)
	inv.SuccessURL, _ = o["success_url"].(string)
	inv.CancelURL, _ = o["cancel_url"].(string)
	switch _, fiat := simFiat[inv.PriceCurrency]; {
	case !fiat:
		return nil, nil, "price_currency is not supported"
	case simCoins[inv.PayCurrency].min == "":
		return nil, nil, "pay_currency is not supported"
	case inv.OrderID == "" || len(inv.OrderID) > 128:
		return nil, nil, "order_id is required"
	case !absoluteURL(inv.IPNURL):
		return nil, nil, "ipn_callback_url must be an absolute URL"
	}
	return inv, price, ""
}

// openInvoice gives the invoice its ids, its amount in the coin and its
// waiting payment, and keeps it.
func (s *Simulator) openInvoice(ctx context.Context, inv *simInvoice, price *big.Rat) error {
	var err error
	if inv.ID, err = randomID(); err != nil {
		return err
	}
	if inv.PaymentID, err = randomID(); err != nil {
		return err
	}
	coin := simCoins[inv.PayCurrency]
	usd := new(big.Rat).Quo(price, rat(simFiat[inv.PriceCurrency]))
	inv.PayAmount = decimalText(usd.Quo(usd, rat(coin.usd)), 8)
	inv.ActuallyPaid, inv.Status = "0", "waiting"
	inv.PayAddress = "sim" + inv.PayCurrency + inv.PaymentID
	inv.CreatedAt = time.Now().UTC().Format(time.RFC3339)
	inv.UpdatedAt = inv.CreatedAt
	if err := s.save(ctx, inv); err != nil {
		return err
	}
	if err := s.state.Put(ctx, paymentKey(inv.PaymentID), []byte(inv.ID), s.cfg.KeepFor); err != nil {
		return fmt.Errorf("keep payment: %w", err)
	}
	return nil
}

func (s *Simulator) invoiceURL(id string) string { return s.cfg.BaseURL + "/payment?iid=" + id }

func (s *Simulator) save(ctx context.Context, inv *simInvoice) error {
	if err := simkit.Save(ctx, s.state, invoiceKey(inv.ID), inv, s.cfg.KeepFor); err != nil {
		return fmt.Errorf("keep invoice: %w", err)
	}
	return nil
}

func (s *Simulator) load(ctx context.Context, id string) (*simInvoice, error) {
	if !wire.IsRef(id) {
		return nil, provider.ErrNotFound
	}
	inv, err := simkit.Load[simInvoice](ctx, s.state, invoiceKey(id))
	if err != nil {
		return nil, fmt.Errorf("invoice %s: %w", id, err)
	}
	return &inv, nil
}

// paymentStatus answers by payment id only, as the provider does: an
// invoice id is not found.
func (s *Simulator) paymentStatus(c *fiber.Ctx) error {
	if !s.authorised(c) {
		return apiError(c, fiber.StatusForbidden, "INVALID_API_KEY", "Invalid api key")
	}
	id := c.Params("id")
	inv, err := s.byPayment(c.UserContext(), id)
	if errors.Is(err, provider.ErrNotFound) {
		return apiError(c, fiber.StatusNotFound, "PAYMENT_NOT_FOUND", "Payment not found")
	}
	if err != nil {
		return err
	}
	body := paymentFields(inv)
	body = append(body, field{"created_at", inv.CreatedAt}, field{"updated_at", inv.UpdatedAt})
	c.Type("json", "utf-8")
	return c.Send(writeFields(body, false))
}

// byPayment finds an invoice by its payment's id.
func (s *Simulator) byPayment(ctx context.Context, id string) (*simInvoice, error) {
	if !wire.IsRef(id) {
		return nil, provider.ErrNotFound
	}
	iid, err := s.state.Get(ctx, paymentKey(id))
	if err != nil {
		return nil, fmt.Errorf("payment %s: %w", id, err)
	}
	return s.load(ctx, string(iid))
}
