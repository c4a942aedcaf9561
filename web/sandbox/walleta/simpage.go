package walleta

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	family "github.com/paygate/gateway/provider/walleta"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider/statement"
	"github.com/paygate/gateway/provider/wire"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

// codePage is the payer's wallet after scanning the code: the trade and a
// Pay and a Fail button. Scanning is what makes the trade exist at the
// provider (WAIT_BUYER_PAY), as with the real wallet.
func (s *Simulator) codePage() *simkit.CodePage[trade] {
	return &simkit.CodePage[trade]{
		Family: family.Family, State: s.state, Log: s.log, Err: s.err, TokenKey: tokenKey, Load: s.load,
		Scan: func(ctx context.Context, t trade) (trade, error) {
			if t.Status != "" {
				return t, nil
			}
			t.Status = family.StatusWaitBuyerPay
			return t, s.save(ctx, t)
		},
		Settle: s.settle, Settled: errSettled,
		Done: func(t trade) string { return doneText(t.Status) }, Render: s.render,
	}
}

// Settle pays or fails the trade of our order id ref (Init.Ref) without a
// browser, as the page's buttons do, and sends the notification.
func (s *Simulator) Settle(ctx context.Context, ref string, paid bool) error {
	return s.code.SettleRef(ctx, ref, paid)
}

func doneText(status string) string {
	switch status {
	case family.StatusTradeSuccess:
		return "Paid."
	case family.StatusTradeClosed:
		return "Payment failed: the trade is closed."
	}
	return ""
}

func (s *Simulator) render(c *fiber.Ctx, t trade, done string) error {
	cur := t.TransCurrency
	if cur == "" {
		cur = "CNY"
	}
	return simkit.SendPage(c, simkit.SimPage{
		Provider: family.Family, OrderID: t.OutTradeNo, Amount: t.TotalAmount, Currency: cur, Description: t.Subject,
		Action: s.qrURL(t.Token), Done: done,
	})
}

// errSettled is a second, different outcome for a trade: a paid trade is
// not failed afterwards, nor the other way round.
var errSettled = errors.New("wallet_a simulator: trade already settled otherwise")

// settle records the outcome (TRADE_SUCCESS or TRADE_CLOSED) and notifies.
// The same outcome again changes and sends nothing. The returned error is
// the first notification attempt's; the notifier keeps trying.
func (s *Simulator) settle(ctx context.Context, t trade, paid bool) (trade, error) {
	want := family.StatusTradeClosed
	if paid {
		want = family.StatusTradeSuccess
	}
	switch t.Status {
	case want:
		return t, nil
	case family.StatusTradeSuccess, family.StatusTradeClosed:
		return t, errSettled
	}
	t.Status, t.Settled = want, time.Now()
	if err := s.save(ctx, t); err != nil {
		return t, err
	}
	if paid {
		if err := s.record(ctx, t); err != nil {
			return t, err
		}
	}
	return t, s.notify(ctx, t)
}

// notify sends the trade_status_sync notification, signed with the
// provider key, until it is answered "success".
func (s *Simulator) notify(ctx context.Context, t trade) error {
	if t.NotifyURL == "" || s.n == nil {
		return nil
	}
	body, err := s.notification(t)
	if err != nil {
		return err
	}
	newReq := wire.Request(http.MethodPost, t.NotifyURL, []byte(body),
		"Content-Type", "application/x-www-form-urlencoded;charset=utf-8")
	accepted := func(status int, b []byte) bool {
		return status == http.StatusOK && strings.TrimSpace(string(b)) == "success"
	}
	if err := s.n.Send(ctx, newReq, accepted); err != nil {
		return fmt.Errorf("wallet_a simulator notification: %w", err)
	}
	return nil
}

// notification is the form the provider posts for a settled trade.
// passback_params goes along even when the call gave none (empty), so that
// every sandbox notification carries an empty parameter, as live ones
// often do, and the adapter's check of those is exercised.
func (s *Simulator) notification(t trade) (string, error) {
	now := time.Now().In(family.ProviderZone)
	f := map[string]string{
		"notify_time": now.Format(family.TimeLayout), "notify_type": "trade_status_sync", "notify_id": simkit.RandomHex(16),
		"app_id": s.cfg.AppID, "charset": "utf-8", "version": "1.0", "sign_type": family.SignType,
		"trade_no": t.TradeNo, "out_trade_no": t.OutTradeNo, "trade_status": t.Status,
		"total_amount": t.TotalAmount, "subject": t.Subject, "passback_params": t.Passback,
		"buyer_logon_id": simBuyer, "gmt_create": t.Created.In(family.ProviderZone).Format(family.TimeLayout),
	}
	if t.TransCurrency != "" {
		f["trans_currency"] = t.TransCurrency
	}
	if t.Status == family.StatusTradeSuccess {
		f["receipt_amount"] = t.TotalAmount
		f["gmt_payment"] = t.Settled.In(family.ProviderZone).Format(family.TimeLayout)
	} else {
		f["gmt_close"] = t.Settled.In(family.ProviderZone).Format(family.TimeLayout)
	}
	sig, err := family.SignFields(s.signKey, family.NotifyBase(f))
	if err != nil {
		return "", fmt.Errorf("wallet_a simulator notification: %w", err)
	}
	f["sign"] = sig
	form := url.Values{}
	for k, v := range f {
		form.Set(k, v) // empty ones too: the provider sends and signs them
	}
	return form.Encode(), nil
}

// record keeps a paid trade for its day's statement, with the fee the
// app's cost charges.
func (s *Simulator) record(ctx context.Context, t trade) error {
	amt, err := schema.ParseAmount(t.TotalAmount)
	if err != nil {
		return fmt.Errorf("trade %s amount: %w", t.TradeNo, err)
	}
	cur := t.TransCurrency
	if cur == "" {
		cur = "CNY"
	}
	fee, err := simkit.Fee(ctx, s.cfg.Cost, amt)
	if err != nil {
		return fmt.Errorf("trade %s: %w", t.TradeNo, err)
	}
	return simkit.RecordSettled(ctx, s.state, family.Family, statement.Row{Ref: t.TradeNo, Order: t.OutTradeNo,
		Currency: cur, Account: s.cfg.AppID, Amount: int64(amt), Fee: int64(fee), At: t.Settled.UTC()})
}
