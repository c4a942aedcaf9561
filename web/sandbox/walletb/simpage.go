package walletb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	family "github.com/paygate/gateway/provider/walletb"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/provider/statement"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/web/sandbox/simkit"
)

// codePage is what the payer's wallet shows after scanning the code.
func (s *Simulator) codePage() *simkit.CodePage[simTx] {
	return &simkit.CodePage[simTx]{
		Family: family.Family, State: s.state, Log: s.log, Err: s.err, TokenKey: tokenKey, Load: s.load,
		Settle: s.settle, Settled: errSettled,
		Done: func(t simTx) string { return doneText(t.State) }, Render: s.render,
	}
}

// Settle pays or fails the transaction of our order id ref (Init.Ref)
// without a browser, as the page's buttons do, and sends the notification.
func (s *Simulator) Settle(ctx context.Context, ref string, paid bool) error {
	return s.code.SettleRef(ctx, ref, paid)
}

func doneText(state string) string {
	switch state {
	case "SUCCESS":
		return "Paid."
	case "PAYERROR":
		return "Payment failed."
	}
	return ""
}

func (s *Simulator) render(c *fiber.Ctx, t simTx, done string) error {
	return simkit.SendPage(c, simkit.SimPage{
		Provider: family.Family, OrderID: t.OutTradeNo, Amount: schema.Amount(t.Total).String(), Currency: t.Currency,
		Description: t.Description, Action: s.codeURL(t.Token), Done: done,
	})
}

// errSettled is a second, different outcome for a transaction.
var errSettled = errors.New("wallet_b simulator: transaction already settled otherwise")

// settle records SUCCESS or PAYERROR and notifies; the same outcome again
// changes and sends nothing. The returned error is the first notification
// attempt's; the notifier keeps trying.
func (s *Simulator) settle(ctx context.Context, t simTx, paid bool) (simTx, error) {
	want := "PAYERROR"
	if paid {
		want = "SUCCESS"
	}
	switch t.State {
	case want:
		return t, nil
	case "SUCCESS", "PAYERROR":
		return t, errSettled
	}
	t.State, t.Settled = want, time.Now()
	if err := s.save(ctx, t); err != nil {
		return t, err
	}
	if paid {
		// The provider keeps the fee the account's cost charges.
		fee, err := simkit.Fee(ctx, s.cfg.Cost, schema.Amount(t.Total))
		if err == nil {
			err = simkit.RecordSettled(ctx, s.state, family.Family, statement.Row{Ref: t.TransactionID, Order: t.OutTradeNo,
				Currency: t.Currency, Account: s.cfg.MerchantID, Amount: t.Total, Fee: int64(fee), At: t.Settled.UTC()})
		}
		if err != nil {
			return t, err
		}
	}
	return t, s.notify(ctx, t)
}

// notify sends the event, its resource sealed with the API v3 key and the
// whole signed with the platform key, until it is answered 200 or 204.
func (s *Simulator) notify(ctx context.Context, t simTx) error {
	if s.n == nil {
		return nil
	}
	body, err := s.event(t)
	if err != nil {
		return err
	}
	newReq := func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.NotifyURL, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		key, serial := s.plat.signer()
		h, err := family.SignMessage(key, serial, time.Now(), body)
		if err != nil {
			return nil, err
		}
		h.Set(s.cfg.HeaderPrefix, req.Header.Set)
		req.Header.Set("Content-Type", "application/json")
		return req, nil
	}
	accepted := func(status int, _ []byte) bool {
		return status == http.StatusOK || status == http.StatusNoContent
	}
	if err := s.n.Send(ctx, newReq, accepted); err != nil {
		return fmt.Errorf("wallet_b simulator notification: %w", err)
	}
	return nil
}

// event is the notification's body for a settled transaction.
func (s *Simulator) event(t simTx) ([]byte, error) {
	plain, err := json.Marshal(s.transaction(t))
	if err != nil {
		return nil, fmt.Errorf("wallet_b simulator event: %w", err)
	}
	res, err := family.Seal([]byte(s.cfg.APIv3Key), plain, "transaction")
	if err != nil {
		return nil, fmt.Errorf("wallet_b simulator event: %w", err)
	}
	ev := family.Event{
		ID: "EV-" + family.RandomToken(20), CreateTime: time.Now().In(family.ProviderZone).Format(time.RFC3339),
		EventType: family.EventSuccess, ResourceType: "encrypt-resource", Summary: "payment succeeded", Resource: res,
	}
	if t.State != "SUCCESS" {
		ev.EventType, ev.Summary = family.EventPayError, "payment failed"
	}
	return json.Marshal(ev)
}
