package bdcard

import (
	"context"
	"fmt"
	"github.com/paygate/gateway/provider/statement"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	family "github.com/paygate/gateway/provider/bdcard"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider/decimal"
	"github.com/paygate/gateway/provider/wire"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

// dhaka is the provider's clock: tran_date is local time, UTC+6.
var dhaka = time.FixedZone("UTC+6", 6*3600)

// The fields each IPN signs, in the order the provider lists them.
var (
	paidNames   = strings.Split("amount,bank_tran_id,card_type,currency,currency_amount,currency_rate,currency_type,risk_level,risk_title,status,store_amount,tran_date,tran_id,val_id", ",")
	failedNames = strings.Split("amount,bank_tran_id,card_type,currency,currency_amount,currency_rate,currency_type,error,status,tran_date,tran_id", ",")
)

// Settle pays or fails the session ref (the session key Initialise returned)
// without a browser, and sends its IPN: what the sandbox's pay and fail
// buttons do. Settling again with the same outcome sends the same IPN again.
func (s *Simulator) Settle(ctx context.Context, ref string, paid bool) error {
	if _, err := s.settle(ctx, ref, paid); err != nil {
		return fmt.Errorf("%s settle: %w", s.cfg.Family, err)
	}
	return nil
}

// settle records the transaction's outcome and sends the IPN (its first
// attempt; the notifier goes on in the background). A session settled
// before keeps its outcome; asking for the other one is an error.
func (s *Simulator) settle(ctx context.Context, key string, paid bool) (simSession, error) {
	sess, err := s.load(ctx, "session", key)
	if err != nil {
		return simSession{}, err
	}
	want := family.StatusFailed
	if paid {
		want = family.StatusValid
	}
	switch sess.Status {
	case family.StatusUnattempted:
		sess.Status, sess.TranDate = want, time.Now().In(dhaka).Format(time.DateTime)
		sess.BankTranID = time.Now().In(dhaka).Format("060102150405") + simkit.RandomHex(4)
		if paid {
			sess.ValID = time.Now().In(dhaka).Format("0601021504") + simkit.RandomHex(6)
			if sess.Fee, err = s.fee(ctx, sess.Amount); err != nil {
				return simSession{}, err
			}
		}
		if err := s.save(ctx, sess); err != nil {
			return simSession{}, err
		}
		if paid {
			if err := s.recordSettled(ctx, sess); err != nil {
				return simSession{}, err
			}
		}
	case want:
	default:
		return simSession{}, fmt.Errorf("session already settled as %s", sess.Status)
	}
	return sess, s.sendIPN(ctx, sess)
}

// ipnFields are the IPN's fields, signed as the provider signs them.
func (s *Simulator) ipnFields(sess simSession) (map[string]string, error) {
	f := map[string]string{
		"tran_id": sess.TranID, "amount": sess.Amount, "currency": sess.Currency, "status": sess.Status,
		"tran_date": sess.TranDate, "bank_tran_id": sess.BankTranID, "card_type": "VISA-Sandbox Bank",
		"currency_type": sess.OrigCurrency, "currency_amount": sess.OrigAmount, "currency_rate": rateOf(sess),
	}
	names := failedNames
	if sess.Status == family.StatusValid {
		names = paidNames
		f["val_id"], f["risk_level"], f["risk_title"] = sess.ValID, "0", "Safe"
		f["store_amount"] = storeAmount(sess)
	} else {
		f["error"] = "Declined by the simulated bank"
	}
	if err := family.Sign(f, names, s.cfg.StorePassword); err != nil {
		return nil, err
	}
	return f, nil
}

// sendIPN posts the IPN to the session's ipn_url until it is answered 200.
func (s *Simulator) sendIPN(ctx context.Context, sess simSession) error {
	f, err := s.ipnFields(sess)
	if err != nil {
		return err
	}
	form := url.Values{}
	for k, v := range f {
		form.Set(k, v)
	}
	body, target := form.Encode(), sess.IPNURL
	err = s.n.Send(ctx, wire.Request(http.MethodPost, target, []byte(body), "Content-Type", "application/x-www-form-urlencoded"),
		func(status int, _ []byte) bool { return status == http.StatusOK })
	if err != nil {
		return fmt.Errorf("ipn for %s: %w", sess.TranID, err)
	}
	return nil
}

// rateOf is the conversion rate the provider reports: BDT per unit of the
// order's own currency, four decimals, computed exactly from the two
// amounts (1.0000 when they are the same currency).
func rateOf(sess simSession) string {
	a, errA := decimal.ParsePadded(sess.Amount)
	o, errO := decimal.ParsePadded(sess.OrigAmount)
	if errA != nil || errO != nil || o == 0 {
		return "1.0000"
	}
	r := (int64(a)*20000 + int64(o)) / (2 * int64(o)) // rounded half up
	return strconv.FormatInt(r/10000, 10) + "." + fmt.Sprintf("%04d", r%10000)
}

// storeAmount is what the store gets: the amount less the fee it was
// charged.
func storeAmount(sess simSession) string {
	a, err := decimal.ParsePadded(sess.Amount)
	if err != nil {
		return sess.Amount
	}
	return (a - sess.Fee).String()
}

// fee is what the store's cost charges on amount.
func (s *Simulator) fee(ctx context.Context, amount string) (schema.Amount, error) {
	a, err := decimal.ParsePadded(amount)
	if err != nil {
		return 0, fmt.Errorf("amount %q: %w", amount, err)
	}
	return simkit.Fee(ctx, s.cfg.Cost, a)
}

// validation answers the validation call for a validation id: VALID the
// first time, VALIDATED after, INVALID_TRANSACTION for what did not pay.
func (s *Simulator) validation(c *fiber.Ctx) error {
	if !s.authorised(c.Query("store_id"), c.Query("store_passwd")) {
		return c.JSON(fiber.Map{"status": "INVALID_REQUEST", "failedreason": "Store Credential Error Or Store is De-active"})
	}
	sess, err := s.load(c.UserContext(), "val", c.Query("val_id"))
	if err != nil || sess.Status != family.StatusValid {
		return c.JSON(fiber.Map{"status": "INVALID_TRANSACTION"})
	}
	status := family.StatusValid
	if sess.Validated {
		status = family.StatusValidated
	} else {
		sess.Validated = true
		if err := s.save(c.UserContext(), sess); err != nil {
			return fmt.Errorf("sim validation: %w", err)
		}
	}
	return c.JSON(s.record(sess, status))
}

// record is a transaction as the validation and query calls show it.
func (s *Simulator) record(sess simSession, status string) fiber.Map {
	m := fiber.Map{
		"status": status, "tran_id": sess.TranID, "val_id": sess.ValID, "amount": sess.Amount,
		"currency": sess.Currency, "tran_date": sess.TranDate, "bank_tran_id": sess.BankTranID,
		"currency_type": sess.OrigCurrency, "currency_amount": sess.OrigAmount, "currency_rate": rateOf(sess),
		"risk_level": "0", "risk_title": "Safe", "APIConnect": "DONE",
	}
	if sess.Status == family.StatusValid {
		m["store_amount"] = storeAmount(sess)
	}
	return m
}

// query answers the transaction query: the attempts under a transaction id.
func (s *Simulator) query(c *fiber.Ctx) error {
	if !s.authorised(c.Query("store_id"), c.Query("store_passwd")) {
		return c.JSON(fiber.Map{"APIConnect": "INVALID_REQUEST"})
	}
	sess, err := s.load(c.UserContext(), "tran", c.Query("tran_id"))
	if err != nil {
		return c.JSON(fiber.Map{"APIConnect": "DONE", "no_of_trans_found": 0, "element": []any{}})
	}
	status := sess.Status
	if status == family.StatusValid && sess.Validated {
		status = family.StatusValidated
	}
	return c.JSON(fiber.Map{"APIConnect": "DONE", "no_of_trans_found": 1, "element": []fiber.Map{s.record(sess, status)}})
}

// recordSettled keeps a paid session for its day's statement: the store is paid
// the store amount, the provider keeping the fee it charged.
func (s *Simulator) recordSettled(ctx context.Context, sess simSession) error {
	amt, err := decimal.ParsePadded(sess.Amount)
	if err != nil {
		return fmt.Errorf("session %s amount: %w", sess.TranID, err)
	}
	return simkit.RecordSettled(ctx, s.state, s.cfg.Family, statement.Row{Ref: sess.BankTranID, Order: sess.TranID,
		Currency: sess.Currency, Account: s.cfg.StoreID, Amount: int64(amt), Fee: int64(sess.Fee), At: time.Now().UTC()})
}
