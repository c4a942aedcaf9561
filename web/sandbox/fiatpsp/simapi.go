package fiatpsp

import (
	"encoding/json"
	"errors"
	"net/mail"
	"net/netip"
	"net/url"
	"strconv"
	"time"

	family "github.com/paygate/gateway/provider/fiatpsp"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// handleSystems answers the systems list, disabled ones flagged.
func (s *Simulator) handleSystems(c *fiber.Ctx) error {
	values, ok := queryValues(c)
	if !ok {
		return refuse(c, fiber.StatusBadRequest, "repeated parameter")
	}
	if err := s.authorised(values); err != nil {
		return refuse(c, fiber.StatusUnauthorized, err.Error())
	}
	out := family.SystemsAnswer{Envelope: family.Envelope{Type: "success"}}
	for _, sys := range s.cfg.Systems {
		enabled := "0"
		if sys.Enabled {
			enabled = "1"
		}
		out.Currencies = append(out.Currencies, family.WireSystem{
			ID: json.Number(strconv.Itoa(sys.ID)), Name: sys.Name, Currency: sys.Currency, IsEnabled: json.Number(enabled),
		})
	}
	return c.JSON(out)
}

// handleCreate creates an order, or answers the same order again for a
// repeated create with the same payment id and terms.
func (s *Simulator) handleCreate(c *fiber.Ctx) error {
	values, ok := bodyValues(c.Body())
	if !ok {
		return refuse(c, fiber.StatusBadRequest, "body must be a flat JSON object")
	}
	if err := s.authorised(values); err != nil {
		return refuse(c, fiber.StatusUnauthorized, err.Error())
	}
	if done, err := s.faults.Intercept(c, func(c *fiber.Ctx) error {
		return refuse(c, fiber.StatusForbidden, "Shop is blocked")
	}); done {
		return err
	}
	o, err := s.newOrder(values)
	if err != nil {
		return refuse(c, fiber.StatusBadRequest, err.Error())
	}
	ctx := c.UserContext()
	prev, err := s.loadByPayment(ctx, o.PaymentID)
	switch {
	case err == nil:
		if prev.System != o.System || prev.Amount != o.Amount || prev.Currency != o.Currency {
			return refuse(c, fiber.StatusBadRequest, "paymentId already used")
		}
		o = prev
	case !errors.Is(err, provider.ErrNotFound):
		return err
	default:
		if err := s.save(ctx, o); err != nil {
			return err
		}
		if err := s.state.Put(ctx, paymentKey(o.PaymentID), []byte(strconv.FormatInt(o.ID, 10)), simTTL); err != nil {
			return err
		}
	}
	return c.JSON(family.CreateAnswer{
		Envelope: family.Envelope{Type: "success"}, OrderID: json.Number(strconv.FormatInt(o.ID, 10)),
		OrderHash: orderHash(o), Location: s.pageURL(o),
	})
}

// newOrder checks a create call's terms as the provider would.
func (s *Simulator) newOrder(v map[string]string) (simOrder, error) {
	sys, ok := s.system(v["i"])
	switch {
	case v["paymentId"] == "" || len(v["paymentId"]) > 128:
		return simOrder{}, errors.New("paymentId required")
	case !ok:
		return simOrder{}, errors.New("unknown or disabled payment system")
	case v["currency"] != sys.Currency:
		return simOrder{}, errors.New("currency does not match the payment system")
	}
	if _, err := schema.ParseAmount(v["amount"]); err != nil {
		return simOrder{}, errors.New("bad amount")
	}
	if _, err := mail.ParseAddress(v["email"]); err != nil {
		return simOrder{}, errors.New("bad email")
	}
	if _, err := netip.ParseAddr(v["ip"]); err != nil {
		return simOrder{}, errors.New("bad ip")
	}
	notify := v["notification_url"]
	if notify == "" {
		notify = s.cfg.NotifyURL
	}
	for _, u := range []string{notify, v["success_url"], v["failure_url"]} {
		if p, err := url.Parse(u); u != "" && (err != nil || (p.Scheme != "http" && p.Scheme != "https")) {
			return simOrder{}, errors.New("bad url")
		}
	}
	if notify == "" {
		return simOrder{}, errors.New("no notification url")
	}
	id, err := newOrderID()
	if err != nil {
		return simOrder{}, err
	}
	return simOrder{
		ID: id, PaymentID: v["paymentId"], System: sys.ID, Amount: v["amount"], Currency: sys.Currency,
		Email: v["email"], NotifyURL: notify, Success: v["success_url"], Failure: v["failure_url"],
		Status: family.StatusNew, Created: time.Now(),
	}, nil
}

// handleStatus answers an order by the provider's id or the shop's payment id.
func (s *Simulator) handleStatus(c *fiber.Ctx) error {
	values, ok := queryValues(c)
	if !ok {
		return refuse(c, fiber.StatusBadRequest, "repeated parameter")
	}
	if err := s.authorised(values); err != nil {
		return refuse(c, fiber.StatusUnauthorized, err.Error())
	}
	ctx := c.UserContext()
	var o simOrder
	var err error
	if id, ok := family.PositiveID(values["orderId"]); ok {
		o, err = s.load(ctx, id)
	} else {
		o, err = s.loadByPayment(ctx, values["paymentId"])
	}
	out := family.OrdersAnswer{Envelope: family.Envelope{Type: "success"}, Orders: []family.WireOrder{}}
	switch {
	case errors.Is(err, provider.ErrNotFound):
	case err != nil:
		return err
	case values["paymentId"] == "" || values["paymentId"] == o.PaymentID:
		out.Pages = 1
		out.Orders = append(out.Orders, family.WireOrder{
			MerchantOrderID: o.PaymentID, OrderID: json.Number(strconv.FormatInt(o.ID, 10)), Amount: family.Literal(o.Amount),
			Currency: o.Currency, Status: json.Number(o.Status), Date: o.Created.UTC().Format("2006-01-02 15:04:05"),
		})
	}
	return c.JSON(out)
}
