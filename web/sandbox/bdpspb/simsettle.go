package bdpspb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/paygate/gateway/provider/statement"
	"github.com/paygate/gateway/web/sandbox/simkit"
	"html/template"
	"net/http"
	"net/url"
	"time"

	family "github.com/paygate/gateway/provider/bdpspb"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/provider/wire"
)

// dhaka is the provider's clock, UTC+6.
var dhaka = time.FixedZone("UTC+6", 6*3600)

// The tester's choices on the page, and the status each records.
var choices = map[string]string{"pay": family.StatusSuccessful, "fail": family.StatusFailed, "cancel": family.StatusCancelled}

// choose records the tester's Pay or Fail (or cancel, which the page does
// not offer but a form may post) and shows the page a real provider shows:
// a form that posts the outcome to the merchant's return address. Without
// script it does not submit itself; the tester presses its button.
func (s *Simulator) choose(c *fiber.Ctx) error {
	status, ok := choices[c.FormValue("outcome")]
	if !ok {
		return c.Status(http.StatusBadRequest).SendString("outcome must be pay, fail or cancel")
	}
	txn, err := s.settle(c.UserContext(), c.Params("track"), status)
	if errors.Is(err, provider.ErrNotFound) {
		return c.Status(http.StatusNotFound).SendString("no such payment")
	}
	if err != nil {
		return c.Status(http.StatusConflict).SendString(err.Error())
	}
	var b bytes.Buffer
	if err := returnPage.Execute(&b, returnForm{Action: txn.returnURL(), Status: txn.Status, Fields: txn.returnFields()}); err != nil {
		return fmt.Errorf("sim return page: %w", err)
	}
	c.Type("html", "utf-8")
	return c.Send(b.Bytes())
}

// Settle pays or fails the payment ref (Init.Ref) without a browser and then
// posts the return form to our return address itself, as the payer's
// browser would, until it is answered without error (2xx or 3xx).
func (s *Simulator) Settle(ctx context.Context, ref string, paid bool) error {
	status := family.StatusFailed
	if paid {
		status = family.StatusSuccessful
	}
	txn, err := s.settle(ctx, ref, status)
	if err != nil {
		return fmt.Errorf("%s settle: %w", family.Family, err)
	}
	body, target := txn.returnFields().Encode(), txn.returnURL()
	err = s.n.Send(ctx, wire.Request(http.MethodPost, target, []byte(body), "Content-Type", "application/x-www-form-urlencoded"),
		func(status int, _ []byte) bool { return status >= 200 && status < 400 })
	if err != nil {
		return fmt.Errorf("%s settle: return to %s: %w", family.Family, txn.TranID, err)
	}
	return nil
}

// settle records the outcome once; the same outcome again is a no-op, a
// different one an error.
func (s *Simulator) settle(ctx context.Context, track, status string) (simTxn, error) {
	txn, err := s.load(ctx, "txn", track)
	if err != nil {
		return simTxn{}, err
	}
	switch txn.Status {
	case family.StatusPending:
		txn.Status, txn.PayTime = status, time.Now().In(dhaka).Format(time.DateTime)
		if status == family.StatusSuccessful {
			a, err := decimal.ParsePadded(txn.Amount)
			if err != nil {
				return simTxn{}, fmt.Errorf("payment %s amount: %w", txn.Track, err)
			}
			if txn.Fee, err = simkit.Fee(ctx, s.cfg.Cost, a); err != nil {
				return simTxn{}, err
			}
		}
		if err := s.save(ctx, txn); err != nil {
			return simTxn{}, err
		}
		if status == family.StatusSuccessful {
			if err := s.recordSettled(ctx, txn); err != nil {
				return simTxn{}, err
			}
		}
	case status:
	default:
		return simTxn{}, fmt.Errorf("payment already settled as %s", txn.Status)
	}
	return txn, nil
}

func (t simTxn) returnURL() string {
	switch t.Status {
	case family.StatusSuccessful:
		return t.SuccessURL
	case family.StatusCancelled:
		return t.CancelURL
	}
	return t.FailURL
}

// returnFields are what the provider posts through the browser: a status
// and our transaction id, with its own id and the amount. None of it is
// signed; the merchant must search.
func (t simTxn) returnFields() url.Values {
	return url.Values{
		"pay_status": {t.Status}, "mer_txnid": {t.TranID}, "pg_txnid": {t.Track},
		"amount": {t.Amount}, "currency": {t.Currency}, "pay_time": {t.PayTime},
	}
}

type returnForm struct {
	Action, Status string
	Fields         url.Values
}

var returnPage = template.Must(template.New("return").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>` + family.Family + ` (sandbox)</title></head>
<body><main><p>Simulated provider: payment {{.Status}}. Back to the merchant:</p>
<form method="post" action="{{.Action}}">{{range $k, $v := .Fields}}<input type="hidden" name="{{$k}}" value="{{index $v 0}}">{{end}}
<button>Return to merchant</button></form></main></body></html>`))

// search answers the transaction search by our transaction id.
func (s *Simulator) search(c *fiber.Ctx) error {
	if !s.authorised(c.Query("store_id"), c.Query("signature_key")) {
		return c.Status(http.StatusUnauthorized).JSON(fiber.Map{"message": "Invalid Store ID or Signature Key"})
	}
	txn, err := s.load(c.UserContext(), "mer", c.Query("request_id"))
	if err != nil {
		return c.Status(http.StatusNotFound).JSON(fiber.Map{"message": "No transaction found"})
	}
	ans := fiber.Map{
		"mer_txnid": txn.TranID, "pg_txnid": txn.Track, "pay_status": txn.Status, "status_code": statusCodes[txn.Status],
		"amount": txn.Amount, "currency": txn.Currency, "pay_time": txn.PayTime,
	}
	if txn.Status == family.StatusSuccessful {
		if a, err := decimal.ParsePadded(txn.Amount); err == nil {
			ans["store_amount"] = (a - txn.Fee).String()
		}
	}
	return c.JSON(ans)
}

// statusCodes are the provider's numeric companions of pay_status.
var statusCodes = map[string]string{family.StatusPending: "0", family.StatusSuccessful: "2", family.StatusFailed: "7", family.StatusCancelled: "9"}

// recordSettled keeps a successful payment for its day's statement, with
// the fee the store was charged.
func (s *Simulator) recordSettled(ctx context.Context, t simTxn) error {
	amt, err := decimal.ParsePadded(t.Amount)
	if err != nil {
		return fmt.Errorf("payment %s amount: %w", t.Track, err)
	}
	return simkit.RecordSettled(ctx, s.state, family.Family, statement.Row{Ref: t.Track, Order: t.TranID,
		Currency: t.Currency, Account: s.cfg.StoreID, Amount: int64(amt), Fee: int64(t.Fee), At: time.Now().UTC()})
}
