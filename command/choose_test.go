package command

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/provider"
	"github.com/paygate/gateway/schema"
)

// selectOrder creates a select order of the sandbox merchant and reads it.
func (h *harness) selectOrder(currency, amount, allowed string) *schema.Order {
	h.t.Helper()
	p := h.baseParams()
	p["paymentMethod"], p["currency"], p["amount"] = "select", currency, amount
	if allowed != "" {
		p["allowedPaymentMethods"] = allowed
	}
	o, err := h.uc.Orders.Order(context.Background(), h.createOK(p)["paymentId"].(string))
	if err != nil {
		h.t.Fatal(err)
	}
	return o
}

// optionList renders options as "method" or "method:reason", in order.
func optionList(opts []schema.MethodOption) string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = string(o.Method)
		if !o.Enabled {
			out[i] += ":" + o.Reason
		}
	}
	return strings.Join(out, ",")
}

// kindOf is a domain error's kind, or "" for none.
func kindOf(err error) platform.Kind { return platform.KindOf(err) }

// orderEvents are the types of order id's events on its stream, in order,
// and the last event's order as the projector would insert it.
func orderEvents(t *testing.T, h *harness, id string) ([]schema.EventType, []any) {
	t.Helper()
	shard, _ := schema.ParseOrderID(id)
	msgs, err := h.rdb.XRange(context.Background(), schema.EventsKey(shard), "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	var types []schema.EventType
	var row []any
	for _, m := range msgs {
		ev, err := schema.DecodeEvent(m.ID, m.Values)
		if err != nil {
			t.Fatalf("undecodable event: %v", err)
		}
		if ev.Order.ID == id {
			types, row = append(types, ev.Type), schema.OrderRow(&ev.Order, ev.At)
		}
	}
	return types, row
}

// TestMethods: what the select page offers, by currency, allowed list,
// mode and amount.
func TestMethods(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	all := "wallet_a,wallet_b,cryptohost,bdcard,bdpsp_a,bdpsp_b,fiatpsp,cryptopsp,usdt_direct"
	tests := []struct {
		name string
		o    *schema.Order
		want string
	}{
		{"CNY: no balance by default", h.selectOrder("CNY", "100", ""), "wallet_a,wallet_b,usdt_direct"},
		{"USD: every method, balance by default", h.selectOrder("USD", "100", ""), all + ",balance"},
		{"EUR", h.selectOrder("EUR", "100", ""), "fiatpsp,cryptopsp"},
		{"allowed list without balance", h.selectOrder("USD", "100", "usdt_direct,wallet_a"), "wallet_a,usdt_direct"},
		{"allowed list with balance, table order", h.selectOrder("USD", "100", "balance,wallet_b"), "wallet_b,balance"},
		{"CNY balance when named", &schema.Order{AppID: h.acct.AppID, Sandbox: true, Currency: "CNY", Amount: 100_00,
			AllowedMethods: "balance,wallet_a"}, "wallet_a,balance"},
		{"below minimums", h.selectOrder("USD", "5", ""),
			"wallet_a,wallet_b,cryptohost,bdcard:below_min,bdpsp_a:below_min,bdpsp_b:below_min,fiatpsp,cryptopsp,usdt_direct:below_min,balance"},
		{"above maximums", h.selectOrder("USD", "60000", ""),
			"wallet_a:above_max,wallet_b:above_max,cryptohost,bdcard,bdpsp_a,bdpsp_b,fiatpsp,cryptopsp,usdt_direct,balance"},
		{"live: only methods with a provider", &schema.Order{AppID: h.live.AppID, Currency: "USD", Amount: 100_00}, "bdcard,balance"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, err := h.uc.Choose.Methods(ctx, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if got := optionList(opts); got != tt.want {
				t.Fatalf("offered %s\nwant    %s", got, tt.want)
			}
		})
	}
	opts, _ := h.uc.Choose.Methods(ctx, h.selectOrder("USD", "5", "bdcard"))
	if len(opts) != 1 || opts[0].Limits != (schema.AmountLimits{Min: 10_00, Max: 500_000_00}) {
		t.Fatalf("an option carries its limits: %+v", opts)
	}
}

// TestChooseMethod: each kind of method takes the order to its next step
// with one changed event for the choice (and one for a provider's answer),
// and the event carries the method chosen, as the listing stores it.
func TestChooseMethod(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	tests := []struct {
		m         schema.Method
		currency  string
		providers int64 // calls
		events    string
		check     func(*schema.Order) bool
	}{
		{schema.MethodWalletA, "CNY", 1, "created,changed,changed", func(o *schema.Order) bool {
			return o.QRPayload != "" && o.ProviderRef == "ref-"+o.ID && o.NextAction == ""
		}},
		{schema.MethodCryptohost, "USD", 1, "created,changed,changed", func(o *schema.Order) bool {
			return o.ProviderURL != "" && o.ProviderRef != "" && o.NextAction == ""
		}},
		{schema.MethodBDCard, "USD", 1, "created,changed,changed", func(o *schema.Order) bool {
			return o.ProviderURL != "" && o.ChargeAmount == 12150_00 && o.ChargeCurrency == "BDT" && o.FXRate == "121.5"
		}},
		{schema.MethodFiatPSP, "USD", 0, "created,changed", func(o *schema.Order) bool {
			return o.NextAction == schema.NextFiatpspSelect && o.ProviderURL == ""
		}},
		{schema.MethodCryptoPSP, "USD", 0, "created,changed", func(o *schema.Order) bool {
			return o.NextAction == schema.NextCryptopspSelect && o.ProviderURL == ""
		}},
		{schema.MethodUSDTDirect, "CNY", 0, "created,changed", func(o *schema.Order) bool {
			holder, _ := h.rdb.Get(ctx, schema.USDTAmountKey(o.PayableAmount)).Result()
			return o.NextAction == schema.NextUSDTDirectPay && strings.HasPrefix(o.PayableAmount, "13.8") && holder == o.ID
		}},
		{schema.MethodBalance, "USD", 0, "created,changed", func(o *schema.Order) bool {
			return o.NextAction == schema.NextBalanceLogin && !o.PaidWithBalance
		}},
	}
	for _, tt := range tests {
		t.Run(string(tt.m), func(t *testing.T) {
			id := h.selectOrder(tt.currency, "100", "").ID
			before := h.prov.Calls.Load()
			o, err := h.uc.Choose.ChooseMethod(ctx, id, tt.m)
			if err != nil {
				t.Fatal(err)
			}
			if o.Method != tt.m || o.Status != schema.StatusReady || !tt.check(o) {
				t.Fatalf("order after the choice: %+v", o)
			}
			if n := h.prov.Calls.Load() - before; n != tt.providers {
				t.Fatalf("provider asked %d times", n)
			}
			if tt.providers > 0 {
				if p := h.prov.Last.Load().(provider.Payment); p.Method != tt.m || p.OrderID != id {
					t.Fatalf("provider asked for %+v", p)
				}
			}
			types, row := orderEvents(t, h, id)
			if got := fmt.Sprint(types); got != "["+strings.ReplaceAll(tt.events, ",", " ")+"]" {
				t.Fatalf("events %s, want %s", got, tt.events)
			}
			if row[8] != string(tt.m) { // the method column of the listing
				t.Fatalf("the last event lists method %v", row[8])
			}
		})
	}
	// The two-step flows go on from there.
	id := h.selectOrder("USD", "100", "").ID
	if _, err := h.uc.Choose.ChooseMethod(ctx, id, schema.MethodFiatPSP); err != nil {
		t.Fatal(err)
	}
	if o, err := h.uc.Confirm.ConfirmFiatpsp(ctx, id, "12"); err != nil || o.ProviderURL == "" || o.ChargeCurrency != "EUR" || o.NextAction != "" {
		t.Fatalf("fiatpsp after the select page: %+v %v", o, err)
	}
}

// TestChooseMethodRefused: what a confirm cannot do, and that it changes
// nothing.
func TestChooseMethodRefused(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	paid := h.selectOrder("USD", "100", "").ID
	if _, err := h.uc.Settle.Move(ctx, paid, schema.StatusPaid); err != nil {
		t.Fatal(err)
	}
	direct := h.createOK(h.baseParams())["paymentId"].(string)
	cancelled := h.selectOrder("USD", "100", "").ID
	if _, err := h.uc.Cancel.Cancel(ctx, cancelled); err != nil {
		t.Fatal(err)
	}
	chosen := h.selectOrder("USD", "100", "").ID
	if _, err := h.uc.Choose.ChooseMethod(ctx, chosen, schema.MethodWalletA); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		id   string
		m    schema.Method
		kind platform.Kind
		msg  string
	}{
		{"no such order", schema.NewOrderID(h.uc.Create.now(), 1), schema.MethodWalletA, platform.KindNotFound, "not found"},
		{"not an order id", "nope", schema.MethodWalletA, platform.KindNotFound, "not found"},
		{"method off the currency", h.selectOrder("CNY", "100", "").ID, schema.MethodBDCard, platform.KindInvalidParameter, "not offered"},
		{"method off the allowed list", h.selectOrder("USD", "100", "wallet_a").ID, schema.MethodWalletB, platform.KindInvalidParameter, "not offered"},
		{"select itself", h.selectOrder("USD", "100", "").ID, schema.MethodSelect, platform.KindInvalidParameter, "not offered"},
		{"below the minimum", h.selectOrder("USD", "5", "").ID, schema.MethodBDCard, platform.KindInvalidParameter, "below the minimum 10.00 USD"},
		{"above the maximum", h.selectOrder("USD", "60000", "").ID, schema.MethodWalletA, platform.KindInvalidParameter, "above the maximum 50000.00 USD"},
		{"a paid order", paid, schema.MethodWalletA, platform.KindConflict, "is paid"},
		{"a cancelled order", cancelled, schema.MethodWalletA, platform.KindConflict, "cancelled"},
		{"not a select order", direct, schema.MethodWalletB, platform.KindConflict, "chosen already"},
		{"a second confirm", chosen, schema.MethodWalletB, platform.KindConflict, "chosen already"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := h.uc.Orders.Order(ctx, tt.id)
			calls := h.prov.Calls.Load()
			_, err := h.uc.Choose.ChooseMethod(ctx, tt.id, tt.m)
			if kindOf(err) != tt.kind || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err %v, want %s with %q", err, tt.kind, tt.msg)
			}
			if after, _ := h.uc.Orders.Order(ctx, tt.id); before != nil && after.Version != before.Version {
				t.Fatalf("a refused choice changed the order: %+v", after)
			}
			if h.prov.Calls.Load() != calls {
				t.Fatal("a refused choice asked the provider")
			}
		})
	}
}

// TestChooseMethodRace: confirms at once, each for another method: one
// wins, with one changed event; the others are conflicts and leave nothing
// behind (the USDT amount a loser reserved is free again).
func TestChooseMethodRace(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	methods := []schema.Method{schema.MethodUSDTDirect, schema.MethodFiatPSP, schema.MethodBalance, schema.MethodCryptoPSP}
	for round := range 6 {
		id := h.selectOrder("USD", "100", "").ID
		errs := make([]error, len(methods))
		var wg sync.WaitGroup
		for i, m := range methods {
			wg.Go(func() { _, errs[i] = h.uc.Choose.ChooseMethod(ctx, id, m) })
		}
		wg.Wait()
		var winner schema.Method
		for i, err := range errs {
			switch {
			case err == nil && winner == "":
				winner = methods[i]
			case kindOf(err) != platform.KindConflict:
				t.Fatalf("round %d: %s: %v (winner %q)", round, methods[i], err, winner)
			}
		}
		o, _ := h.uc.Orders.Order(ctx, id)
		types, _ := orderEvents(t, h, id)
		if winner == "" || o.Method != winner || fmt.Sprint(types) != "[created changed]" {
			t.Fatalf("round %d: winner %q, order %s, events %v", round, winner, o.Method, types)
		}
		keys, _ := h.rdb.Keys(ctx, "gw:usdt:amount:*").Result()
		held := 0
		for _, k := range keys {
			if v, _ := h.rdb.Get(ctx, k).Result(); v == id {
				held++
			}
		}
		if want := map[bool]int{true: 1, false: 0}[winner == schema.MethodUSDTDirect]; held != want {
			t.Fatalf("round %d: %d USDT amounts held for the order, want %d (winner %s)", round, held, want, winner)
		}
	}
	// Two provider methods at once: the provider is asked once.
	id := h.selectOrder("USD", "100", "").ID
	before := h.prov.Calls.Load()
	var wg sync.WaitGroup
	for _, m := range []schema.Method{schema.MethodWalletA, schema.MethodCryptohost} {
		wg.Go(func() { _, _ = h.uc.Choose.ChooseMethod(ctx, id, m) })
	}
	wg.Wait()
	if n := h.prov.Calls.Load() - before; n != 1 {
		t.Fatalf("provider asked %d times", n)
	}
}

// TestChooseMethodProviderDown: the choice stays, the order fails, the
// payer is told.
func TestChooseMethodProviderDown(t *testing.T) {
	h := newRedisHarness(t)
	ctx := context.Background()
	id := h.selectOrder("USD", "100", "").ID
	down := fmt.Errorf("fake: %w", provider.ErrUnavailable)
	h.prov.Fail.Store(&down)
	defer h.prov.Fail.Store(nil)
	if _, err := h.uc.Choose.ChooseMethod(ctx, id, schema.MethodCryptohost); kindOf(err) != platform.KindUnavailable {
		t.Fatalf("choice with the provider down: %v", err)
	}
	if o, _ := h.uc.Orders.Order(ctx, id); o.Status != schema.StatusFailed || o.Method != schema.MethodCryptohost {
		t.Fatalf("order: %+v", o)
	}
}
