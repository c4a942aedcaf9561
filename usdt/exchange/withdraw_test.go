package exchange_test

import (
	"context"
	"errors"
	"testing"
	"time"

	exchange "github.com/paygate/gateway/usdt/exchange"
	"github.com/paygate/gateway/web/sandbox/usdt/usdtsim"
)

const evmPayee = "0x94df8b352de7f46f64b01d3666bf6e936e44ce60"

// TestWithdraw: an apply is accepted once under its withdrawOrderId; the
// history finds it by that id, processing and then completed with its
// transaction; a second apply under the id is refused and makes nothing.
func TestWithdraw(t *testing.T) {
	ctx := context.Background()
	a := newAccount(t)
	c := a.client(nil)
	ask := exchange.WithdrawAsk{OrderID: "PO1", Network: "ETH", Address: evmPayee, Amount: "60.00"}
	id, err := c.Withdraw(ctx, ask)
	if err != nil || id == "" {
		t.Fatalf("Withdraw = %q, %v", id, err)
	}
	row, found, err := c.Withdrawal(ctx, "PO1", time.Time{}, time.Time{})
	if err != nil || !found || row.ID != id || row.Status != exchange.WithdrawCompleted || len(row.TxID) != 66 ||
		row.Amount != "60.00" || row.Network != "ETH" || row.Address != evmPayee || row.WithdrawOrderID != "PO1" {
		t.Fatalf("Withdrawal = %+v, %v, %v", row, found, err)
	}
	var apiErr *exchange.APIError
	if _, err := c.Withdraw(ctx, ask); !errors.As(err, &apiErr) || apiErr.Code != exchange.CodeDuplicateWithdrawOrderID {
		t.Fatalf("second apply under PO1: %v, want the duplicate refusal", err)
	}
	rec, _, err := a.sim.Withdrawal(ctx, "PO1")
	if err != nil || rec.Applies != 2 || rec.Row.ID != id || rec.Row.TxID != row.TxID {
		t.Fatalf("the simulator's record %+v, %v: want one withdrawal asked for twice", rec, err)
	}
	if _, found, err := c.Withdrawal(ctx, "PO2", time.Time{}, time.Time{}); err != nil || found {
		t.Errorf("Withdrawal of an id never used: found %v, %v", found, err)
	}
}

// TestWithdrawRefusals: what the exchange refuses is an *APIError with its
// code, and nothing is recorded.
func TestWithdrawRefusals(t *testing.T) {
	ctx := context.Background()
	a := newAccount(t)
	cases := []struct {
		name string
		ask  exchange.WithdrawAsk
		code int
	}{
		{"TRON address on BSC", exchange.WithdrawAsk{OrderID: "PO1", Network: "BSC", Address: ours, Amount: "1"}, -4005},
		{"unknown network", exchange.WithdrawAsk{OrderID: "PO2", Network: "SOL", Address: ours, Amount: "1"}, -4005},
		{"negative amount", exchange.WithdrawAsk{OrderID: "PO3", Network: "TRX", Address: ours, Amount: "-1"}, -4006},
		{"zero amount", exchange.WithdrawAsk{OrderID: "PO4", Network: "TRX", Address: ours, Amount: "0.00"}, -4006},
		{"id not letters and digits", exchange.WithdrawAsk{OrderID: "PO-5", Network: "TRX", Address: ours, Amount: "1"}, -1102},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var apiErr *exchange.APIError
			if _, err := a.client(nil).Withdraw(ctx, tc.ask); !errors.As(err, &apiErr) || apiErr.Status != 400 || apiErr.Code != tc.code {
				t.Fatalf("Withdraw = %v, want HTTP 400 code %d", err, tc.code)
			}
			if _, found, _ := a.sim.Withdrawal(ctx, tc.ask.OrderID); found {
				t.Error("a refused withdrawal was recorded")
			}
		})
	}
	bad := a.client(func(c *exchange.Config) { c.Secret = "x" })
	var apiErr *exchange.APIError
	if _, err := bad.Withdraw(ctx, exchange.WithdrawAsk{OrderID: "PO9", Network: "TRX", Address: ours, Amount: "1"}); !errors.As(err, &apiErr) || apiErr.Code != -1022 {
		t.Errorf("badly signed apply: %v", err)
	}
	if _, found, _ := a.sim.Withdrawal(ctx, "PO9"); found {
		t.Error("a badly signed apply was recorded")
	}
}

// TestWithdrawalHistoryRange: the history answers a range of at most a
// window, the last one by default, and a withdrawal only inside its range.
func TestWithdrawalHistoryRange(t *testing.T) {
	ctx := context.Background()
	a := newAccount(t)
	c := a.client(nil)
	if _, err := c.Withdraw(ctx, exchange.WithdrawAsk{OrderID: "PO1", Network: "TRX", Address: ours, Amount: "1"}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		from, to time.Time
		found    bool
	}{
		{"the last window", time.Time{}, time.Time{}, true},
		{"a window ending at the apply", epoch.Add(-exchange.WithdrawWindow), epoch, true},
		{"a window before it", epoch.Add(-exchange.WithdrawWindow - time.Second), epoch.Add(-time.Second), false},
	}
	for _, tc := range cases {
		if _, found, err := c.Withdrawal(ctx, "PO1", tc.from, tc.to); err != nil || found != tc.found {
			t.Errorf("%s: found %v, %v; want %v", tc.name, found, err, tc.found)
		}
	}
	if _, _, err := c.Withdrawal(ctx, "PO1", epoch.Add(-exchange.WithdrawWindow-time.Second), epoch); err == nil {
		t.Error("a range over a window was asked for")
	}
}

// TestWithdrawBackendDown: the withdrawal endpoints down or hanging are
// errors, never a refusal nor "not found".
func TestWithdrawBackendDown(t *testing.T) {
	ctx := context.Background()
	a := newAccount(t)
	c := a.client(nil)
	for _, f := range []usdtsim.Failure{usdtsim.Down, usdtsim.Hang} {
		if err := a.sim.Fail(ctx, "withdraw", f); err != nil {
			t.Fatal(err)
		}
		var apiErr *exchange.APIError
		if _, err := c.Withdraw(ctx, exchange.WithdrawAsk{OrderID: "PO1", Network: "TRX", Address: ours, Amount: "1"}); err == nil || errors.As(err, &apiErr) {
			t.Errorf("apply %s: %v, want a backend error", f, err)
		}
		if _, found, err := c.Withdrawal(ctx, "PO1", time.Time{}, time.Time{}); err == nil || found {
			t.Errorf("history %s: found %v, %v; want a backend error", f, found, err)
		}
	}
}
