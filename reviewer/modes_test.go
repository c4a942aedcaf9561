package reviewer

import (
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paygate/gateway/internal/testenv"
	"github.com/paygate/gateway/schema"
	"github.com/paygate/gateway/usdt"
)

// units is payable at n's decimals, plus delta units.
func units(t *testing.T, payable string, n usdt.Network, delta int64) *big.Int {
	t.Helper()
	u, err := usdt.Units(payable, n.Decimals)
	if err != nil {
		t.Fatal(err)
	}
	return u.Add(u, big.NewInt(delta))
}

// goodTx is a transaction that pays o on n: a success, after the order was
// created, deep enough, exactly the payable amount to our first address.
func goodTx(t *testing.T, o *schema.Order, n usdt.Network) usdt.Tx {
	t.Helper()
	return usdt.Tx{Hash: o.TxHash, Success: true, BlockTime: o.CreatedAt.Add(2 * time.Minute), Confirmations: n.Confirmations,
		Transfers: []usdt.TokenTransfer{{Contract: n.Contract, From: "payer", To: n.Addresses[0], Units: units(t, o.PayableAmount, n, 0)}}}
}

// goodDeposit is the exchange's credited deposit that pays o on n.
func goodDeposit(o *schema.Order, n usdt.Network) usdt.Deposit {
	return usdt.Deposit{TxID: o.TxHash, Coin: "USDT", Network: n.ExchangeNetwork, Address: n.Addresses[0], Amount: o.PayableAmount,
		Success: true, InsertTime: o.CreatedAt.Add(3 * time.Minute)}
}

// goodPayment is the exchange's successful payment record for o.
func goodPayment(o *schema.Order) usdt.Payment {
	return usdt.Payment{OrderID: o.ID, Amount: o.PayableAmount, Coin: "USDT", Success: true, TxID: o.TxHash, Time: o.CreatedAt.Add(time.Minute)}
}

// modeCase is one review decided at once.
type modeCase struct {
	name    string
	network usdt.Network
	mode    usdt.Mode
	tx      func(t *testing.T, tx *usdt.Tx) // changes the good transaction; nil: the chain knows none
	deposit func(d *usdt.Deposit)           // changes the good deposit; nil: no deposit
	payment func(p *usdt.Payment)           // changes the good payment; nil: no payment
	outcome string                          // the landed call: approve, reject, escalate
	reason  string
	order   func(o *schema.Order) // changes the order before it is queued
	finding string                // a wrong_amount rejection's: underpaid or overpaid
}

func keep[T any](*T) {}

func TestReviewByMode(t *testing.T) {
	cases := []modeCase{
		// chain
		{name: "chain approved TRC20", network: trc20, mode: usdt.ModeChain, tx: func(*testing.T, *usdt.Tx) {}, outcome: "approve"},
		{name: "chain approved BEP20 at 18 decimals", network: bep20, mode: usdt.ModeChain, tx: func(*testing.T, *usdt.Tx) {}, outcome: "approve"},
		{name: "chain approved to the second address among other transfers", network: trc20, mode: usdt.ModeChain,
			tx: func(t *testing.T, tx *usdt.Tx) {
				good := tx.Transfers[0]
				good.To = trc20.Addresses[1]
				tx.Transfers = []usdt.TokenTransfer{{Contract: "TOtherToken", To: trc20.Addresses[0], Units: good.Units}, good}
			}, outcome: "approve"},
		{name: "chain one micro-USDT more", network: trc20, mode: usdt.ModeChain,
			tx: func(t *testing.T, tx *usdt.Tx) { tx.Transfers[0].Units.Add(tx.Transfers[0].Units, big.NewInt(1)) }, outcome: "reject", reason: "wrong_amount", finding: "overpaid"},
		{name: "chain one micro-USDT less", network: trc20, mode: usdt.ModeChain,
			tx: func(t *testing.T, tx *usdt.Tx) { tx.Transfers[0].Units.Sub(tx.Transfers[0].Units, big.NewInt(1)) }, outcome: "reject", reason: "wrong_amount", finding: "underpaid"},
		{name: "chain BEP20 one micro-USDT less at 18 decimals", network: bep20, mode: usdt.ModeChain,
			tx: func(t *testing.T, tx *usdt.Tx) {
				tx.Transfers[0].Units.Sub(tx.Transfers[0].Units, big.NewInt(1_000_000_000_000))
			}, outcome: "reject", reason: "wrong_amount", finding: "underpaid"},
		{name: "chain BEP20 one unit (1e-18) more", network: bep20, mode: usdt.ModeChain,
			tx: func(t *testing.T, tx *usdt.Tx) { tx.Transfers[0].Units.Add(tx.Transfers[0].Units, big.NewInt(1)) }, outcome: "reject", reason: "wrong_amount", finding: "overpaid"},
		{name: "chain BEP20 read at 6 decimals", network: bep20, mode: usdt.ModeChain,
			tx: func(t *testing.T, tx *usdt.Tx) { tx.Transfers[0].Units = units(t, "12.347061", trc20, 0) }, outcome: "reject", reason: "wrong_amount", finding: "underpaid"},
		{name: "chain wrong recipient", network: trc20, mode: usdt.ModeChain,
			tx: func(t *testing.T, tx *usdt.Tx) { tx.Transfers[0].To = "TSomeoneElse111111111111111111111" }, outcome: "reject", reason: "wrong_address"},
		{name: "chain wrong token contract", network: bep20, mode: usdt.ModeChain,
			tx: func(t *testing.T, tx *usdt.Tx) {
				tx.Transfers[0].Contract = "0x8ac76a51cc950d9822d68b83fe1ad97b32cd580d"
			}, outcome: "reject", reason: "wrong_token"},
		{name: "chain no transfer at all", network: trc20, mode: usdt.ModeChain,
			tx: func(t *testing.T, tx *usdt.Tx) { tx.Transfers = nil }, outcome: "reject", reason: "wrong_token"},
		{name: "chain failed transaction", network: trc20, mode: usdt.ModeChain,
			tx: func(t *testing.T, tx *usdt.Tx) { tx.Success = false }, outcome: "reject", reason: "failed_tx"},
		{name: "chain transaction older than the order", network: trc20, mode: usdt.ModeChain,
			tx: func(t *testing.T, tx *usdt.Tx) {
				tx.BlockTime = tx.BlockTime.Add(-2*time.Minute - clockSkew - time.Second)
			}, outcome: "reject", reason: "too_old"},
		{name: "chain block time within the clock-skew allowance", network: trc20, mode: usdt.ModeChain,
			tx: func(t *testing.T, tx *usdt.Tx) {
				tx.BlockTime = tx.BlockTime.Add(-2*time.Minute - clockSkew + time.Second)
			}, outcome: "approve"},
		{name: "unknown network", network: usdt.Network{Name: "ERC20"}, mode: usdt.ModeChain, outcome: "escalate", reason: "unknown_network"},
		{name: "payable amount that does not fit the token", network: trc20, mode: usdt.ModeChain, tx: func(*testing.T, *usdt.Tx) {},
			order: func(o *schema.Order) { o.PayableAmount = "12.3470611" }, outcome: "escalate", reason: "invalid_order"},
		// exchange
		{name: "exchange approved", network: trc20, mode: usdt.ModeExchange, deposit: keep[usdt.Deposit], outcome: "approve"},
		{name: "exchange amount with trailing zeros", network: bep20, mode: usdt.ModeExchange,
			deposit: func(d *usdt.Deposit) { d.Amount += "000" }, outcome: "approve"},
		{name: "exchange one micro-USDT less", network: trc20, mode: usdt.ModeExchange,
			deposit: func(d *usdt.Deposit) { d.Amount = "12.347060" }, outcome: "reject", reason: "wrong_amount", finding: "underpaid"},
		{name: "exchange one micro-USDT more", network: trc20, mode: usdt.ModeExchange,
			deposit: func(d *usdt.Deposit) { d.Amount = "12.347062" }, outcome: "reject", reason: "wrong_amount", finding: "overpaid"},
		{name: "exchange amount in exponent form", network: trc20, mode: usdt.ModeExchange,
			deposit: func(d *usdt.Deposit) { d.Amount = "1.2347061e1" }, outcome: "reject", reason: "wrong_amount"},
		{name: "exchange wrong address", network: trc20, mode: usdt.ModeExchange,
			deposit: func(d *usdt.Deposit) { d.Address = "TSomeoneElse111111111111111111111" }, outcome: "reject", reason: "wrong_address"},
		{name: "exchange wrong coin", network: trc20, mode: usdt.ModeExchange,
			deposit: func(d *usdt.Deposit) { d.Coin = "USDC" }, outcome: "reject", reason: "wrong_token"},
		{name: "exchange credited on another network", network: trc20, mode: usdt.ModeExchange,
			deposit: func(d *usdt.Deposit) { d.Network = "ETH" }, outcome: "reject", reason: "wrong_network"},
		{name: "exchange deposit older than the order", network: trc20, mode: usdt.ModeExchange,
			deposit: func(d *usdt.Deposit) { d.InsertTime = d.InsertTime.Add(-time.Hour) }, outcome: "reject", reason: "too_old"},
		// dual
		{name: "dual both agree", network: bep20, mode: usdt.ModeDual, tx: func(*testing.T, *usdt.Tx) {}, deposit: keep[usdt.Deposit], outcome: "approve"},
		{name: "dual chain approves, exchange says another amount", network: bep20, mode: usdt.ModeDual, tx: func(*testing.T, *usdt.Tx) {},
			deposit: func(d *usdt.Deposit) { d.Amount = "12.347062" }, outcome: "escalate", reason: "disagree"},
		{name: "dual chain rejects, exchange approves", network: trc20, mode: usdt.ModeDual,
			tx: func(t *testing.T, tx *usdt.Tx) { tx.Transfers[0].To = "TSomeoneElse111111111111111111111" }, deposit: keep[usdt.Deposit],
			outcome: "escalate", reason: "disagree"},
		{name: "dual both reject", network: trc20, mode: usdt.ModeDual, tx: func(t *testing.T, tx *usdt.Tx) { tx.Success = false },
			deposit: func(d *usdt.Deposit) { d.Coin = "BTC" }, outcome: "reject", reason: "failed_tx"},
		// exchange pay
		{name: "exchange pay approved", network: trc20, mode: usdt.ModeExchangePay, payment: keep[usdt.Payment], outcome: "approve"},
		{name: "exchange pay wrong amount", network: trc20, mode: usdt.ModeExchangePay,
			payment: func(p *usdt.Payment) { p.Amount = "12.34706" }, outcome: "reject", reason: "wrong_amount", finding: "underpaid"},
		{name: "exchange pay wrong coin", network: bep20, mode: usdt.ModeExchangePay,
			payment: func(p *usdt.Payment) { p.Coin = "BUSD" }, outcome: "reject", reason: "wrong_token"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.nets.setMode(trc20.Name, tc.mode)
			e.nets.setMode(bep20.Name, tc.mode)
			o := e.newOrder(tc.network.Name, "12.347061", "0xhash"+strings.ReplaceAll(tc.name, " ", "-"))
			if tc.order != nil {
				tc.order(o)
				e.orders.put(o)
			}
			if tc.tx != nil {
				tx := goodTx(t, &schema.Order{TxHash: o.TxHash, CreatedAt: o.CreatedAt, PayableAmount: "12.347061"}, tc.network)
				tc.tx(t, &tx)
				e.chain(tc.network.Name).set(tx, nil)
			}
			if tc.deposit != nil {
				d := goodDeposit(o, tc.network)
				tc.deposit(&d)
				e.be.exch.putDeposit(d)
			}
			if tc.payment != nil {
				p := goodPayment(o)
				tc.payment(&p)
				e.be.exch.putPayment(p)
			}
			r := e.start(testConfig(), nil)
			got := e.decided(o.ID)
			if got.Outcome != tc.outcome || got.D.Reason != tc.reason || got.Hash != o.TxHash || got.D.Finding != tc.finding {
				t.Fatalf("outcome %s %q (found %q) for hash %s, want %s %q (found %q) for %s (evidence %q, note %q)",
					got.Outcome, got.D.Reason, got.D.Finding, got.Hash, tc.outcome, tc.reason, tc.finding, o.TxHash, got.D.Evidence, got.D.Note)
			}
			wantOutcome := map[string]string{"approve": usdt.OutcomeApproved, "reject": usdt.OutcomeRejected, "escalate": usdt.OutcomeWaiting}[tc.outcome]
			if got.D.Outcome != wantOutcome || got.D.By != r.ID() || got.D.At.IsZero() || got.D.Evidence == "" && tc.reason != "invalid_order" {
				t.Fatalf("decision %+v: want outcome %s by %s, with a time and evidence", got.D, wantOutcome, r.ID())
			}
			if e.queued(o.ID) {
				t.Fatal("the decided order is still queued for review")
			}
			mode := string(tc.mode)
			if tc.reason == "unknown_network" {
				mode = modeUnknown
			}
			metricOut := map[string]string{"approve": outApproved, "reject": outRejected, "escalate": outWaiting}[tc.outcome]
			testenv.Eventually(t, 5*time.Second, "the review counted", func() bool {
				return metricValue(t, r.reg, "gateway_usdt_reviews_total", map[string]string{"mode": mode, "outcome": metricOut}) == 1 &&
					metricValue(t, r.reg, "gateway_usdt_review_seconds", map[string]string{"mode": mode}) == 1
			})
			if n := len(e.outcomesOf(o.ID)); n != 1 {
				t.Fatalf("%d outcome calls landed, want 1", n)
			}
		})
	}
}

// TestWrongAmountMovesTheHash: a transfer to our address of another
// payable amount is handed to the order that amount names (a security
// review finding); a
// transfer finer than a micro-USDT names no order.
func TestWrongAmountMovesTheHash(t *testing.T) {
	cases := []struct {
		name    string
		network usdt.Network
		extra   *big.Int
		want    string
	}{
		{"TRC20 one micro-USDT more", trc20, big.NewInt(1), "12.347062"},
		{"BEP20 one micro-USDT more", bep20, big.NewInt(1_000_000_000_000), "12.347062"},
		{"BEP20 one unit (1e-18) more", bep20, big.NewInt(1), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			o := e.newOrder(tc.network.Name, "12.347061", "0xmove-"+strings.ReplaceAll(tc.name, " ", "-"))
			tx := goodTx(t, o, tc.network)
			tx.Transfers[0].Units.Add(tx.Transfers[0].Units, tc.extra)
			e.chain(tc.network.Name).set(tx, nil)
			e.start(testConfig(), nil)
			if got := e.decided(o.ID); got.D.Reason != "wrong_amount" {
				t.Fatalf("decided %+v", got)
			}
			want := []string(nil)
			if tc.want != "" {
				want = []string{o.ID + "->" + tc.want}
			}
			testenv.Eventually(t, 5*time.Second, "the move asked for", func() bool {
				e.orders.mu.Lock()
				defer e.orders.mu.Unlock()
				return slices.Equal(e.orders.moves, want)
			})
		})
	}
}
